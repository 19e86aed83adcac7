import CampaignMockModel
import CampaignMockTestSupport
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

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

    /// A key an app sent with ESC, BEL, a newline, markup and a workflow command in it: the key is in the
    /// finding's words, and the text cannot end the document or start a command of its own.
    static let hostileKey = "evil\u{1B}[31m\u{07}\n::add-mask::secret,<b>&\"x%"

    private func registerHostile(_ port: UInt16) throws {
        let key = Self.hostileKey.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try register(port, key: key, token: "aa01", userKey: "") == 404)
    }

    @Test func junitIsTheOnlyOutputAndHoldsNoControlCharacter() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe(["--in-memory"], in: directory)
        defer { server.signal(SIGTERM) }
        let clean = try check(port, ["--format", "junit"])
        #expect(clean.code == 0)
        #expect(clean.output.contains(#"<testcase classname="campaign-mock.checks" name="no findings"/>"#))

        try registerHostile(port)
        // Information only, below --fail-on: a passing case.
        #expect(try register(port, key: "campaign-mock-demo-ios", token: "aa02", userKey: "") == 200)
        #expect(try register(port, key: "campaign-mock-demo-ios", token: "aa03", userKey: "jane") == 200)
        let report = try check(port, ["--format", "junit"])
        #expect(report.code == 1)
        let bytes = Array(report.output.utf8)
        #expect(!bytes.contains { $0 < 0x20 && $0 != 0x0A }, "a control character reached the XML")
        #expect(report.output.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        #expect(report.output.contains(#"\u{1B}[31m\u{7}"#))
        let document = try XMLDocument(data: Data(bytes))
        let cases = try document.nodes(forXPath: "//testcase")
        #expect(cases.count == 2)
        let failures = try document.nodes(forXPath: "//testcase/failure")
        #expect(failures.count == 1)
        let failure = try #require(failures.first as? XMLElement)
        #expect(failure.attribute(forName: "type")?.stringValue == "registration-refused")
        #expect(failure.stringValue?.contains("Fix: ") == true)
        #expect(failure.stringValue?.contains("::add-mask::secret,<b>&\"x%") == true)
        let passing = try document.nodes(forXPath: "//testcase[@name='user-key-missing:campaign-mock-demo-ios']")
        #expect(passing.count == 1)
        #expect(try document.nodes(forXPath: "//testsuite[@tests='2'][@failures='1']").count == 1)
        #expect(
            try check(port, ["--format", "junit", "--fail-on", "info"]).output.components(
                separatedBy: "<failure "
            ).count == 3)
    }

    @Test func githubAnnotationsAreEscapedAsWorkflowCommands() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe(["--in-memory"], in: directory)
        defer { server.signal(SIGTERM) }
        #expect(try check(port, ["--format", "github"]).output == "")
        try registerHostile(port)
        let annotations = try check(port, ["--format", "github"])
        #expect(annotations.code == 1)
        let lines = annotations.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "\(lines)")
        let line = String(lines[0])
        #expect(line.hasPrefix("::error title=registration-refused%3A "), "\(line)")
        #expect(!Array(line.utf8).contains { $0 < 0x20 || $0 == 0x7F })
        // The newline and the percent sign are escaped; the command in the key stays text in the message.
        #expect(line.contains(#"evil\u{1B}[31m\u{7}%0A::add-mask::secret,<b>&"x%25"#), "\(line)")
        let title = line.dropFirst("::error title=".count).prefix { $0 != ":" }
        #expect(!title.contains(",") && line.dropFirst("::error title=".count + title.count).hasPrefix("::"))
        // Below --fail-on, an error finding is a warning annotation: it does not fail the job.
        #expect(try check(port, ["--format", "github", "--fail-on", "never"]).output.hasPrefix("::warning title="))
    }

    @Test func jsonIsAFormatAndTheOldFlagStays() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe(["--in-memory"], in: directory)
        defer { server.signal(SIGTERM) }
        try registerHostile(port)
        for arguments in [["--format", "json"], ["--json"]] {
            let answer = try check(port, arguments)
            #expect(answer.code == 1)
            let report = try JSONDecoder().decode(CheckReport.self, from: Data(answer.output.utf8))
            #expect(report.counts.error == 1)
            #expect(report.windows?.openReceive.lengthMilliseconds == 10_000)
        }
    }

    /// An Android open without its receive: straight after, the finding is not there yet (the receive may
    /// still come within 10 s); `--wait` waits the window out, finds it, and says it waited.
    @Test func waitWaitsOutAnOpensWindowForItsReceive() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe(["--in-memory"], in: directory)
        defer { server.signal(SIGTERM) }
        func send(_ head: String, _ body: String = "") throws -> RawResponse {
            let client = try RawHTTPClient(port: port)
            try client.send(head + "Host: 127.0.0.1:\(port)\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
            return try client.readResponse()
        }
        let registration = "registrationToken=cXJ0eV9pbnN0YW5jZQ:APA91bH3&mobileAppUuid=campaign-mock-demo-android"
        let registered = try send(
            "POST /nms/mobile/1/registerAndroid.jssp HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\n",
            registration)
        #expect(registered.status == 200)
        let push = try send(
            "POST /_mock/push HTTP/1.1\r\nContent-Type: application/json\r\n",
            #"{"token": "cXJ0eV9pbnN0YW5jZQ:APA91bH3", "title": "Sale"}"#)
        #expect(push.status == 201, "\(String(decoding: push.body, as: UTF8.self))")
        let composed = try JSONDecoder().decode(ComposedPush.self, from: Data(push.body))
        let open = composed.messages[0].tracking.open
        #expect(try send("GET \(open) HTTP/1.1\r\nUser-Agent: Mozilla/5.0 (Linux; U; Android 14)\r\n").status == 200)
        let straight = try check(port, ["--fail-on", "info"])
        #expect(straight.code == 0, "\(straight.output)")
        let waited = try check(port, ["--wait", "--fail-on", "info"])
        #expect(waited.code == 1, "\(waited.output)")
        #expect(waited.output.hasPrefix("campaign-mock check: waited "), "\(waited.output)")
        #expect(waited.output.contains("for the receive window of 1 open (10.0 s)"), "\(waited.output)")
        #expect(waited.output.contains("open-without-receive"))
        let again = try check(port, ["--wait", "--format", "junit"])
        #expect(again.error.contains("nothing to wait for"), "\(again.error)")
        #expect(again.output.hasPrefix("<?xml"))
    }
}
