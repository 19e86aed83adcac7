import CampaignMockTestSupport
import Foundation
import Testing

/// What a device tool gets from the server, tested on the built binary as a user runs it (its own
/// environment, its descriptors, its working folder, SIGTERM): only an allow-listed environment, only
/// descriptors 0–2, no tool from a relative PATH folder, and no tool left running once the server exits.
@Suite("what the device tools inherit", .timeLimit(.minutes(2)))
struct DeviceToolInheritanceTests {
    /// An executable script `name` in `folder`.
    private func tool(_ name: String, in folder: String, _ script: String) throws {
        let path = folder + "/" + name
        try ("#!/bin/sh\n" + script + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }

    /// `campaign-mock serve` on a free port in `directory`, with `environment` added to this process's
    /// (the Android variables emptied unless given, so this machine's SDK is not found), started by `launcher`
    /// (a shell line ending in `exec "$0" "$@"`) when given.
    private func serve(
        in directory: TemporaryDirectory, environment: [String: String], arguments: [String] = [],
        launcher: String? = nil
    ) throws -> (server: ChildProcess, port: UInt16) {
        let arguments = ["serve", "--port", "0"] + arguments
        let environment = ["ANDROID_HOME": "", "ANDROID_SDK_ROOT": "", "HOME": directory.path].merging(environment) {
            $1
        }
        let server =
            try launcher.map {
                try ChildProcess(
                    "/bin/sh", ["-c", $0, campaignMockBinary] + arguments, workingDirectory: directory.path,
                    environment: environment)
            }
            ?? ChildProcess(campaignMockBinary, arguments, workingDirectory: directory.path, environment: environment)
        guard let banner = server.waitForOutput(containing: "Stop with Ctrl-C") else {
            throw RawClientError("no banner; stderr: \(server.standardError)")
        }
        guard let range = banner.range(of: #"http://127\.0\.0\.1:(\d+)"#, options: .regularExpression),
            let port = UInt16(banner[range].split(separator: ":").last!)
        else { throw RawClientError("no URL in banner: \(banner)") }
        return (server, port)
    }

    private func get(_ path: String, port: UInt16, token: String? = nil) throws -> RawResponse {
        let client = try RawHTTPClient(port: port)
        let authorization = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
        try client.send(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nCampaign-Mock-Client: test\r\n\(authorization)Connection: close\r\n\r\n"
        )
        return try client.readResponse()
    }

    @Test func aToolGetsOnlyTheAllowListedEnvironment() throws {
        let directory = TemporaryDirectory()
        let tools = directory.path + "/tools"
        try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
        let dump = directory.path + "/environment"
        try tool("adb", in: tools, "env > '\(dump)'; echo 'List of devices attached'")
        let given = [
            "PATH": tools + ":/usr/bin:/bin", "TMPDIR": "/tmp", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "DEVELOPER_DIR": "/Applications/Xcode.app", "ANDROID_SERIAL": "emulator-5554", "ADB_TRACE": "adb",
        ]
        let secrets = [
            "CAMPAIGN_MOCK_ADMIN_TOKEN": "admin-secret", "CAMPAIGN_MOCK_SOAP_PASSWORD": "soap-secret",
            "CAMPAIGN_MOCK_SOAP_BEARER_TOKENS": "bearer-secret", "CAMPAIGN_MOCK_OPERATORS": "ops:ops-secret",
            "AWS_SECRET_ACCESS_KEY": "cloud-secret", "ANDROID_KEYSTORE_PASSWORD": "keystore-secret",
            "ADB_KEYSTORE_PASS": "adb-secret",
        ]
        // PATH's relative entries (`.`, empty, `bin`) are left out: the tool gets its absolute ones.
        let passed = given.merging(["PATH": ".:" + tools + "::bin:/usr/bin:/bin"]) { $1 }
        let (server, port) = try serve(
            in: directory, environment: passed.merging(secrets) { $1 }, arguments: ["--in-memory"])
        #expect(try get("/_mock/emulators", port: port, token: "admin-secret").status == 200)
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)

        let seen = Dictionary(
            try String(contentsOfFile: dump, encoding: .utf8).split(separator: "\n").compactMap { line in
                line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
            }
        ) { first, _ in first }
        for (name, value) in given.merging(["HOME": directory.path], uniquingKeysWith: { $1 }) {
            #expect(seen[name] == value, "\(name)")
        }
        // Besides HOME and the emptied Android variables of `serve`, the shell that runs the fake adds PWD
        // (and may add SHLVL, `_`): nothing else is there.
        let added: Set = ["HOME", "ANDROID_HOME", "ANDROID_SDK_ROOT", "PWD", "SHLVL", "_", "OLDPWD"]
        #expect(Set(seen.keys).subtracting(given.keys).subtracting(added) == [])
        let dumped = try String(contentsOfFile: dump, encoding: .utf8)
        for secret in secrets.values { #expect(!dumped.contains(secret), "\(secret)") }
    }

    #if os(Linux)
        /// The server holds listening sockets, the SQLite file, a spooled request body and a descriptor it
        /// inherited without close-on-exec (as from a careless parent): the tool sees 0, 1 and 2 alone.
        @Test func aToolSeesOnlyDescriptorsZeroToTwo() throws {
            let directory = TemporaryDirectory()
            let tools = directory.path + "/tools"
            try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
            let listing = directory.path + "/descriptors"
            // ls lists its own descriptors; the one it reads the folder with is left out below.
            try tool("adb", in: tools, "exec ls -l /proc/self/fd > '\(listing)'")
            let inherited = directory.path + "/inherited"
            #expect(FileManager.default.createFile(atPath: inherited, contents: Data()))
            let (server, port) = try serve(
                in: directory, environment: ["PATH": tools + ":/usr/bin:/bin"],
                launcher: "exec 7<'\(inherited)'; exec \"$0\" \"$@\"")

            // A state import whose body is still arriving: spooled to an unlinked file in the data directory.
            let upload = try RawHTTPClient(port: port)
            try upload.send(
                "PUT /_mock/state HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n{\"devices\":")
            func serverDescriptors() -> [String] {
                let folder = "/proc/\(server.pid)/fd"
                return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).compactMap {
                    try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)
                }
            }
            let patience = Date().addingTimeInterval(10)
            while !serverDescriptors().contains(where: { $0.contains(".campaign-mock-body-") }), Date() < patience {
                usleep(10_000)
            }
            let held = serverDescriptors()
            #expect(held.contains { $0.contains(".campaign-mock-body-") && $0.hasSuffix("(deleted)") })
            #expect(held.contains { $0.hasSuffix("/campaign-mock.sqlite3") })
            #expect(held.contains { $0.hasPrefix("socket:") })
            #expect(held.contains(inherited))

            _ = try get("/_mock/emulators", port: port)
            let seen = try String(contentsOfFile: listing, encoding: .utf8).split(separator: "\n").compactMap {
                line -> (Int, String)? in
                let parts = line.split(separator: " ").suffix(3)
                guard parts.count == 3, parts.dropFirst().first == "->", let fd = Int(parts.first!) else { return nil }
                return (fd, String(parts.last!))
            }
            let others = seen.filter { !$0.1.hasPrefix("/proc/") || !$0.1.hasSuffix("/fd") }
            #expect(others.map(\.0).sorted() == [0, 1, 2], "\(seen)")
            server.signal(SIGTERM)
            #expect(server.waitForExit() == 0)
        }

        /// A tool still running when the server gets SIGTERM is stopped with everything it started.
        @Test func aToolStillRunningAtShutdownIsStoppedWithItsProcessGroup() throws {
            let directory = TemporaryDirectory()
            let tools = directory.path + "/tools"
            try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
            let pids = directory.path + "/pids"
            try tool(
                "adb", in: tools, "sleep 60 & echo \"$$ $!\" > '\(pids).partial'; mv '\(pids).partial' '\(pids)'; wait"
            )
            let (server, port) = try serve(
                in: directory, environment: ["PATH": tools + ":/usr/bin:/bin"], arguments: ["--in-memory"])

            let client = try RawHTTPClient(port: port)
            try client.send("GET /_mock/emulators HTTP/1.1\r\nHost: 127.0.0.1\r\nCampaign-Mock-Client: test\r\n\r\n")
            let patience = Date().addingTimeInterval(10)
            while !FileManager.default.fileExists(atPath: pids), Date() < patience { usleep(10_000) }
            let started = try String(contentsOfFile: pids, encoding: .utf8).split(separator: " ").compactMap {
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            #expect(started.count == 2)

            server.signal(SIGTERM)
            #expect(server.waitForExit() == 0)
            for pid in started { #expect(processEnds(pid), "process \(pid) of the tool's group still runs") }
        }
    #endif

    /// PATH's `.` names the folder the server was started in: an `adb` there is not taken.
    @Test func aRelativePathFolderIsIgnored() throws {
        let directory = TemporaryDirectory()
        try tool("adb", in: directory.path, "echo 'List of devices attached'")
        try tool("xcrun", in: directory.path, "exit 0")
        let (server, port) = try serve(
            in: directory, environment: ["PATH": ".:tools"], arguments: ["--in-memory"])
        let info = try JSONSerialization.jsonObject(with: Data(try get("/_mock/info", port: port).body))
        let tools = try #require((info as? [String: Any])?["tools"] as? [String: Any])
        #expect(tools["adb"] == nil && tools["xcrun"] == nil)
        #expect(
            ((tools["lookup"] as? [String: String])?["adb"])?.hasPrefix("not found at start: looked on PATH") == true)
        #expect(try get("/_mock/emulators", port: port).status == 503)
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
    }
}
