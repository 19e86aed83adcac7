import CampaignMockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("campaign-mock serve --record and replay", .timeLimit(.minutes(2)))
struct RecordReplayCommandTests {
    private func send(_ port: UInt16, _ request: String) throws -> Int {
        let client = try RawHTTPClient(port: port)
        try client.send(request)
        return try client.readResponse().status
    }

    private func register(_ port: UInt16, key: String) throws -> Int {
        let body = "registrationToken=\(DeviceTokens.apns)&mobileAppUuid=\(key)&userKey=jane%40example.com"
        return try send(
            port,
            "POST /nms/mobile/1/registerIOS.jssp HTTP/1.1\r\nHost: m\r\nContent-Type: application/x-www-form-urlencoded"
                + "\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
    }

    @Test func recordsWithCurlAndReplaysWithExitCodes() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe(
            ["--in-memory", "--app", "ios:secret-ios-key", "--record", "recording"], in: directory)
        defer { server.signal(SIGTERM) }
        #expect(try register(port, key: "secret-ios-key") == 200)
        let curl = try runProcess(
            "/usr/bin/env", ["curl", "-s", "-o", "/dev/null", "http://127.0.0.1:\(port)/r/?id=h3039,7a001,1"])
        #expect(curl.code == 0)
        let recording = directory.path + "/recording"
        let files = try FileManager.default.contentsOfDirectory(atPath: recording).sorted()
        #expect(
            files == [
                ".gitignore", "0001-registerIOS-200.json", "0002-tracking-200.json", "recording.json", "secrets.json",
            ]
        )
        let text = try String(contentsOfFile: recording + "/" + files[1], encoding: .utf8)
        #expect(!text.contains("secret-ios-key") && !text.contains(DeviceTokens.apns) && !text.contains("jane"))

        // A fresh server knows the key; replaying the directory fills the placeholders from its secrets.json.
        let (target, targetPort) = try startServe(["--in-memory", "--app", "ios:secret-ios-key"], in: directory)
        defer { target.signal(SIGTERM) }
        let url = "http://127.0.0.1:\(targetPort)"
        let passing = try runProcess(binary, ["replay", recording, "--target", url])
        #expect(passing.code == 0, "\(passing.output)\(passing.error)")
        #expect(passing.output.hasSuffix("2 passed, 0 failed\n"))

        // The files alone (no secrets.json) take the key from the environment.
        let exchanges = files.filter { $0.first?.isNumber == true }.map { recording + "/" + $0 }
        let fromEnvironment = try runProcess(
            binary, ["replay"] + exchanges + ["--target", url],
            environment: ["CAMPAIGN_MOCK_SECRET_integrationKey_1": "secret-ios-key"])
        #expect(fromEnvironment.code == 0, "\(fromEnvironment.output)\(fromEnvironment.error)")

        // Without the key the registration is refused: exit 1, the difference and a hint.
        let failing = try runProcess(binary, ["replay"] + exchanges + ["--target", url])
        #expect(failing.code == 1)
        #expect(failing.output.contains("FAIL 0001-registerIOS-200.json  POST /nms/mobile/1/registerIOS.jssp"))
        #expect(failing.output.contains("    status: expected 200, got 404"))
        #expect(failing.output.contains("--secret integrationKey-1=VALUE"))
        #expect(failing.output.hasSuffix("1 passed, 1 failed\n"))

        let fast = try runProcess(binary, ["replay"] + exchanges + ["--target", url, "--fail-fast"])
        #expect(fast.code == 1)
        #expect(fast.output.hasSuffix("0 passed, 1 failed, 1 not run\n"))
    }

    @Test func keepsSecretsOutOfGitAndDoesNotRecordItsOwnReplay() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe(
            ["--in-memory", "--app", "ios:secret-ios-key", "--record", "recording"], in: directory)
        defer { server.signal(SIGTERM) }
        #expect(try register(port, key: "secret-ios-key") == 200)
        let recording = directory.path + "/recording"
        var status = stat()
        #expect(stat(recording + "/secrets.json", &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        let secrets =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: recording + "/secrets.json"))) as? [String: String]
        #expect(secrets?["redacted-integrationKey-1"] == "secret-ios-key")
        #expect(secrets?["redacted-registrationToken-1"] == DeviceTokens.apns)
        #expect(try String(contentsOfFile: recording + "/.gitignore", encoding: .utf8) == "secrets.json\n")

        // git agrees: the recording can be committed without its secrets.
        let git = try runProcess(
            "/usr/bin/env", ["git", "-C", recording, "init", "-q"], workingDirectory: directory.path)
        #expect(git.code == 0)
        let gitStatus = try runProcess("/usr/bin/env", ["git", "-C", recording, "status", "--porcelain", "-uall"])
        #expect(gitStatus.output.contains("0001-registerIOS-200.json"))
        #expect(!gitStatus.output.contains("secrets.json"))

        // The banner's replay line, against the recording server itself: passes, and adds nothing.
        let banner = try #require(server.waitForOutput(containing: "Stop with Ctrl-C"))
        let line = try #require(banner.split(separator: "\n").first { $0.contains("check a server against it:") })
        let words = line.split(separator: ":", maxSplits: 1)[1].split(separator: " ").map(String.init)
        #expect(words.dropFirst().first == "replay")
        let replay = try runProcess(binary, Array(words.dropFirst()), workingDirectory: directory.path)
        #expect(replay.code == 0, "\(replay.output)\(replay.error)")
        #expect(replay.output.hasSuffix("1 passed, 0 failed\n"))
        let after = try FileManager.default.contentsOfDirectory(atPath: recording).filter { $0.hasSuffix("-200.json") }
        #expect(after == ["0001-registerIOS-200.json"])
        // A request without the mark is recorded as before.
        #expect(try register(port, key: "secret-ios-key") == 200)
        #expect(FileManager.default.fileExists(atPath: recording + "/0002-registerIOS-200.json"))
    }

    @Test(arguments: [
        ["replay", "/nonexistent-recording", "--target", "http://127.0.0.1:9"],
        ["replay", ".", "--target", "ftp://x"],
        ["replay", ".", "--target", "http://127.0.0.1:9", "--secret", "novalue"],
    ])
    func usageErrorsExitWith2(_ arguments: [String]) throws {
        let result = try runProcess(binary, arguments)
        #expect(result.code == 2, "\(result.error)")
        #expect(result.error.hasPrefix("error: "))
    }

    @Test func refusesToRecordIntoARecording() throws {
        let directory = TemporaryDirectory()
        #expect(
            FileManager.default.createFile(atPath: directory.path + "/0001-ping-200.json", contents: Data("{}".utf8)))
        let result = try runProcess(binary, ["serve", "--in-memory", "--port", "0", "--record", directory.path])
        #expect(result.code == 1)
        #expect(result.error.contains("already holds 1 exchange file(s)"))
    }
}
