import CampaignMockModel
import CampaignMockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `campaign-mock check` against a running `campaign-mock serve`: the findings in words, and the exit code a
/// CI job reads (0 none at or above `--fail-on`, 1 some, 2 no server or an error answer).
@Suite("campaign-mock check", .timeLimit(.minutes(2)))
struct CheckCommandTests {
    private func register(_ port: UInt16, key: String, token: String, userKey: String) throws -> Int {
        let client = try RawHTTPClient(port: port)
        let body = "registrationToken=\(token)&mobileAppUuid=\(key)&userKey=\(userKey)"
        try client.send(
            "POST /nms/mobile/1/registerIOS.jssp HTTP/1.1\r\nHost: m\r\nContent-Type: application/x-www-form-urlencoded"
                + "\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        return try client.readResponse().status
    }

    private func check(_ port: UInt16, _ arguments: [String] = []) throws -> (
        code: Int32, output: String, error: String
    ) {
        try runProcess(binary, ["check", "--server", "http://127.0.0.1:\(port)"] + arguments)
    }

    @Test func exitsByTheMostSevereFindingAndPrintsTheirWords() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe(["--in-memory"], in: directory)
        defer { server.signal(SIGTERM) }

        let clean = try check(port)
        #expect(clean.code == 0, "\(clean.error)")
        #expect(clean.output == "0 errors, 0 warnings, 0 info\n")

        // Information only: one device registered before the user logged in.
        #expect(try register(port, key: "campaign-mock-demo-ios", token: "aa01", userKey: "jane%40example.com") == 200)
        #expect(try register(port, key: "campaign-mock-demo-ios", token: "aa02", userKey: "") == 200)
        #expect(try check(port).code == 0)
        #expect(try check(port, ["--fail-on", "warning"]).code == 0)
        let info = try check(port, ["--fail-on", "info"])
        #expect(info.code == 1)
        #expect(info.output.contains("INFO user-key-missing campaign-mock-demo-ios token=aa02"))
        #expect(info.error == "campaign-mock check: 1 finding at or above info\n")

        // An error: the iOS build with a typo in its integration key.
        #expect(try register(port, key: "campaign-mock-demo-ois", token: "aa03", userKey: "") == 404)
        let failing = try check(port)
        #expect(failing.code == 1)
        #expect(failing.output.contains("ERROR registration-refused campaign-mock-demo-ois"))
        #expect(failing.output.contains("the nearest known key is 'campaign-mock-demo-ios'"))
        #expect(failing.output.contains("  Fix: Set the app's integration key to 'campaign-mock-demo-ios'"))
        #expect(failing.output.contains("  See docs/checks.md#registration-refused"))
        #expect(failing.output.hasSuffix("1 error, 0 warnings, 1 info\n"))
        #expect(try check(port, ["--fail-on", "never"]).code == 0)
        // Only the findings of one application.
        #expect(try check(port, ["--app", "campaign-mock-demo-ios"]).code == 0)

        let json = try check(port, ["--json"])
        #expect(json.code == 1)
        let report = try JSONDecoder().decode(CheckReport.self, from: Data(json.output.utf8))
        #expect(report.counts == CheckReport.Counts(error: 1, warning: 0, info: 1))
    }

    @Test func exitsTwoWhenTheServerCannotAnswer() throws {
        let unreachable = try runProcess(binary, ["check", "--server", "http://127.0.0.1:9"])
        #expect(unreachable.code == 2)
        #expect(unreachable.error.hasPrefix("error: "))

        let directory = TemporaryDirectory()
        let (server, port) = try startServe(["--in-memory", "--admin-token", "s3cret-token"], in: directory)
        defer { server.signal(SIGTERM) }
        let refused = try check(port)
        #expect(refused.code == 2)
        #expect(refused.error.hasPrefix("error: the server answered 401"), "\(refused.error)")
        #expect(try check(port, ["--admin-token", "s3cret-token"]).code == 0)

        let usage = try runProcess(binary, ["check", "--fail-on", "sometimes"])
        #expect(usage.code == 2)
    }
}
