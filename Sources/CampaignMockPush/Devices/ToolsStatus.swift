/// The device tools found at start, for the one-click pushes to a simulator or an emulator, as
/// `GET /_mock/info` and the console show them: where each tool was found, absent when it was not;
/// `lookup` says where, or where it was looked for.
package struct ToolsStatus: Sendable, Codable, Equatable {
    /// `xcrun`, which runs `simctl` (macOS with Xcode).
    package var xcrun: String?
    /// `adb` (Android platform tools).
    package var adb: String?
    package var lookup: Lookup

    /// Per tool, `found on PATH`, `found in $ANDROID_HOME/platform-tools`…, or `not found at start: looked
    /// on PATH, in …`.
    package struct Lookup: Sendable, Codable, Equatable {
        package var xcrun: String
        package var adb: String
    }
}
