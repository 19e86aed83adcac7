package import CampaignMockRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The command-line tools that put a push on a device of this machine.
package enum DeviceTool: String, Sendable, CaseIterable {
    /// Runs `simctl`, the iOS simulator's control (macOS with Xcode).
    case xcrun
    /// The Android Debug Bridge (Android platform tools).
    case adb
}

/// Where each ``DeviceTool`` was found on `PATH` at start.
package struct DeviceTools: Sendable {
    package let paths: [DeviceTool: String]

    /// Looks each tool up in `searchPath`'s folders (`PATH`'s form), first match wins: an executable file.
    package init(searchPath: String) {
        let folders = searchPath.split(separator: ":").map(String.init)
        var paths: [DeviceTool: String] = [:]
        for tool in DeviceTool.allCases {
            paths[tool] = folders.lazy.map { $0 + "/" + tool.rawValue }.first(where: Self.isExecutableFile)
        }
        self.paths = paths
    }

    /// What `GET /_mock/info` says of them.
    package var info: ConsoleInfo.Tools {
        ConsoleInfo.Tools(xcrun: paths[.xcrun], adb: paths[.adb])
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }
}
