import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockPush

/// Where the server finds `xcrun` and `adb`: absolute PATH folders, then for adb the Android SDK's
/// variables and Android Studio's default folder; `/_mock/info` says where, or where it looked.
@Suite("finding the device tools", .timeLimit(.minutes(2)))
struct DeviceToolLookupTests {
    /// An executable `adb` in `folder` (made with its parents).
    private func fakeADB(in folder: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/adb"
        try "#!/bin/sh\nprintf 'List of devices attached\\nemulator-5554\\tdevice\\n\\n'\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test func findsADBUnderAndroidHomeWithAnEmptyPath() throws {
        let sdk = TemporaryDirectory()
        let adb = try fakeADB(in: sdk.path + "/platform-tools")
        let live = try InProcessServer.withSDKApplications {
            $0.toolEnvironment = ["PATH": "", "ANDROID_HOME": sdk.path]
        }
        let tools = try #require(try live.json("GET", "/_mock/info").object["tools"] as? [String: Any])
        #expect(tools["adb"] as? String == adb)
        #expect((tools["lookup"] as? [String: String])?["adb"] == "found in $ANDROID_HOME/platform-tools")
        let emulators = try live.json("GET", "/_mock/emulators")
        #expect(emulators.status == 200)
        #expect(
            emulators.object["emulators"] as? [[String: String]] == [["serial": "emulator-5554", "state": "device"]])
    }

    @Test func looksOnPathFirstThenTheSDKVariablesThenAndroidStudiosFolder() throws {
        let root = TemporaryDirectory().path
        let onPath = try fakeADB(in: root + "/bin")
        let home = try fakeADB(in: root + "/sdk-home/platform-tools")
        let sdkRoot = try fakeADB(in: root + "/sdk-root/platform-tools")
        #if os(macOS)
            let studio = try fakeADB(in: root + "/home/Library/Android/sdk/platform-tools")
            let studioName = "found in ~/Library/Android/sdk/platform-tools"
        #else
            let studio = try fakeADB(in: root + "/home/Android/Sdk/platform-tools")
            let studioName = "found in ~/Android/Sdk/platform-tools"
        #endif
        let all = [
            "PATH": "/nonexistent:" + root + "/bin", "ANDROID_HOME": root + "/sdk-home",
            "ANDROID_SDK_ROOT": root + "/sdk-root", "HOME": root + "/home",
        ]
        let cases: [(drop: [String], path: String, lookup: String)] = [
            ([], onPath, "found on PATH"),
            (["PATH"], home, "found in $ANDROID_HOME/platform-tools"),
            (["PATH", "ANDROID_HOME"], sdkRoot, "found in $ANDROID_SDK_ROOT/platform-tools"),
            (["PATH", "ANDROID_HOME", "ANDROID_SDK_ROOT"], studio, studioName),
        ]
        for (drop, path, lookup) in cases {
            let tools = DeviceTools(environment: all.filter { !drop.contains($0.key) })
            #expect(tools.paths[.adb] == path, "without \(drop)")
            #expect(tools.lookup[.adb] == lookup)
            #expect(tools.paths[.xcrun] == nil)
        }
    }

    @Test func saysWhereItLookedWhenADBIsNowhere() {
        let tools = DeviceTools(environment: [
            "PATH": ".:bin:/nonexistent", "ANDROID_HOME": "sdk", "HOME": "/nonexistent",
        ])
        #expect(tools.paths.isEmpty)
        #if os(macOS)
            let studio = "~/Library/Android/sdk/platform-tools"
        #else
            let studio = "~/Android/Sdk/platform-tools"
        #endif
        #expect(
            tools.lookup[.adb]
                == "not found at start: looked on PATH, in $ANDROID_HOME/platform-tools (ANDROID_HOME is not an "
                + "absolute path), in $ANDROID_SDK_ROOT/platform-tools (ANDROID_SDK_ROOT is not set), in \(studio); "
                + "it comes with the Android platform tools")
        #expect(tools.lookup[.xcrun] == "not found at start: looked on PATH; it comes with Xcode, on macOS")
    }
}
