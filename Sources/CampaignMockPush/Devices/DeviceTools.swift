#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The command-line tools that put a push on a device of this machine.
package enum DeviceTool: String, Sendable, CaseIterable {
    /// Runs `simctl`, the iOS simulator's control (macOS with Xcode).
    case xcrun
    /// The Android Debug Bridge (Android platform tools).
    case adb

    /// What provides it, for the messages that say it was not found.
    var providedBy: String {
        switch self {
        case .xcrun: "Xcode, on macOS"
        case .adb: "the Android platform tools"
        }
    }

    /// What to do without it, for the `503` of the calls that need it.
    package var withoutIt: String {
        switch self {
        case .xcrun:
            "without it, write the file with campaign-mock push --token T --format simctl --out F and run the "
                + "printed xcrun line on a Mac"
        case .adb:
            "without it, print the adb lines with campaign-mock push --token T --format json and run them where "
                + "adb reaches the emulator"
        }
    }
}

/// Where each ``DeviceTool`` was found at start, or where it was looked for.
package struct DeviceTools: Sendable {
    package let paths: [DeviceTool: String]
    /// Per tool: where it was found (`on PATH`, `in $ANDROID_HOME/platform-tools`…) or, when it was not,
    /// every place looked in.
    package let lookup: [DeviceTool: String]

    /// A folder a tool is looked for in, and how to name it to the user.
    private struct Place {
        var name: String
        /// Nil when the variable naming it is not set, or not an absolute path.
        var folder: String?
        var why: String?
    }

    /// Looks each tool up from `environment` (nil: this process's): first in `PATH`'s folders (absolute
    /// ones only: `.` or `bin` would depend on the folder the server was started in), then `adb` in
    /// `$ANDROID_HOME/platform-tools`, `$ANDROID_SDK_ROOT/platform-tools` and where Android Studio installs
    /// the SDK (`~/Android/Sdk` on Linux, `~/Library/Android/sdk` on macOS). First executable file wins.
    package init(environment: [String: String]? = nil) {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let onPath = (environment["PATH"] ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
            .map { Place(name: "on PATH", folder: $0) }
        func variable(_ name: String, _ subfolder: String, _ shown: String) -> Place {
            guard let value = environment[name], !value.isEmpty else {
                return Place(name: shown, why: "\(name) is not set")
            }
            guard value.hasPrefix("/") else { return Place(name: shown, why: "\(name) is not an absolute path") }
            return Place(name: shown, folder: value + subfolder)
        }
        #if os(macOS)
            let studio = ("/Library/Android/sdk/platform-tools", "~/Library/Android/sdk/platform-tools")
        #else
            let studio = ("/Android/Sdk/platform-tools", "~/Android/Sdk/platform-tools")
        #endif
        var paths: [DeviceTool: String] = [:]
        var lookup: [DeviceTool: String] = [:]
        for tool in DeviceTool.allCases {
            var places = onPath.isEmpty ? [Place(name: "on PATH", why: "no absolute folder in it")] : onPath
            if tool == .adb {
                places += [
                    variable("ANDROID_HOME", "/platform-tools", "in $ANDROID_HOME/platform-tools"),
                    variable("ANDROID_SDK_ROOT", "/platform-tools", "in $ANDROID_SDK_ROOT/platform-tools"),
                    variable("HOME", studio.0, "in " + studio.1),
                ]
            }
            let found = places.lazy.compactMap { place in
                place.folder.map { (place: place.name, path: $0 + "/" + tool.rawValue) }
            }.first { ToolProcess.isExecutable($0.path) }
            if let found {
                paths[tool] = found.path
                lookup[tool] = "found " + found.place
            } else {
                var named = Set<String>()
                let looked = places.filter { named.insert($0.name).inserted }
                    .map { place in place.why.map { "\(place.name) (\($0))" } ?? place.name }
                lookup[tool] =
                    "not found at start: looked \(looked.joined(separator: ", ")); it comes with \(tool.providedBy)"
            }
        }
        self.paths = paths
        self.lookup = lookup
    }

    /// What `GET /_mock/info` says of them.
    package var status: ToolsStatus {
        ToolsStatus(
            xcrun: paths[.xcrun], adb: paths[.adb],
            lookup: ToolsStatus.Lookup(xcrun: lookup[.xcrun] ?? "", adb: lookup[.adb] ?? ""))
    }
}
