import CampaignMockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("campaign-mock push", .timeLimit(.minutes(2)))
struct PushCommandTests {
    private func register(_ port: UInt16, _ path: String, _ body: String) throws {
        let client = try RawHTTPClient(port: port)
        try client.send(
            "POST \(path) HTTP/1.1\r\nHost: m\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        #expect(try client.readResponse().status == 200)
    }

    @Test func writesTheAPNsFileAndPrintsTheSimctlLine() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe(
            ["--in-memory", "--app", "ios:ios-key", "--app", "android:android-key"], in: directory)
        defer { server.signal(SIGTERM) }
        try register(
            port, "/nms/mobile/1/registerIOS.jssp", "registrationToken=\(DeviceTokens.apns)&mobileAppUuid=ios-key")
        try register(port, "/nms/mobile/1/registerAndroid.jssp", "registrationToken=fcm-1&mobileAppUuid=android-key")
        let url = "http://127.0.0.1:\(port)"

        let simctl = try runProcess(
            binary,
            [
                "push", "--server", url, "--token", DeviceTokens.apns, "--title", "Sale", "--body", "20% off", "--var",
                "VAR=x",
                "--bundle-id", "com.example.shop", "--format", "simctl", "--out", "sale.apns",
            ],
            workingDirectory: directory.path)
        #expect(simctl.code == 0, "\(simctl.error)")
        #expect(simctl.output == "xcrun simctl push booted com.example.shop sale.apns\n")
        let file = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: directory.path + "/sale.apns"))) as? [String: Any])
        #expect(file["Simulator Target Bundle"] as? String == "com.example.shop")
        #expect(file["VAR"] as? String == "x")
        #expect(file["_mId"] is String)

        let fcm = try runProcess(
            binary, ["push", "--server", url, "--token", "fcm-1", "--body", "Hi", "--format", "fcm"])
        #expect(fcm.code == 0, "\(fcm.error)")
        let message = try #require(try JSONSerialization.jsonObject(with: Data(fcm.output.utf8)) as? [String: Any])
        #expect(((message["message"] as? [String: Any])?["data"] as? [String: String])?["_msg"] == "Hi")
        #expect(((message["message"] as? [String: Any])?["android"] as? [String: String]) == ["priority": "high"])
        let normal = try runProcess(
            binary,
            [
                "push", "--server", url, "--token", "fcm-1", "--body", "Hi", "--android-priority", "normal", "--format",
                "fcm",
            ])
        #expect(normal.code == 0, "\(normal.error)")
        let normalMessage = try JSONSerialization.jsonObject(with: Data(normal.output.utf8)) as? [String: Any]
        #expect(
            ((normalMessage?["message"] as? [String: Any])?["android"] as? [String: String]) == ["priority": "normal"])

        let wrongPlatform = try runProcess(
            binary, ["push", "--server", url, "--token", "fcm-1", "--body", "Hi", "--format", "apns"])
        #expect(wrongPlatform.code == 1)
        #expect(wrongPlatform.error.contains("404: no registered iOS device with token 'fcm-1'"))
        let unknown = try runProcess(binary, ["push", "--server", url, "--token", "nope", "--body", "Hi"])
        #expect(unknown.code == 1)
        #expect(unknown.error.contains("404: no registered device with token 'nope'"))
    }

    @Test(arguments: [
        (["push", "--token", "t"], "a notification needs a title or a body"),
        (["push", "--title", "x"], "give token, or userKey with app"),
        (["push", "--token", "t", "--title", "x", "--var", "novalue"], "--var must be KEY=VALUE"),
        (["push", "--token", "t", "--title", "x", "--id-style", "v9"], "--id-style must be"),
        (
            ["push", "--token", "t", "--title", "x", "--android-priority", "HIGH"],
            "--android-priority must be normal or high"
        ),
        (["push", "--token", "t", "--title", "x", "--server", "https://localhost:8443"], "must be an http:// URL"),
    ])
    func refusesBadUsageWithExit2(_ arguments: [String], _ message: String) throws {
        let result = try runProcess(binary, arguments)
        #expect(result.code == 2)
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test func reportsAnUnreachableServerWithExit1() throws {
        let result = try runProcess(binary, ["push", "--server", "http://127.0.0.1:1", "--token", "t", "--title", "x"])
        #expect(result.code == 1)
        #expect(result.error.contains("cannot connect to 127.0.0.1:1"))
    }
}
