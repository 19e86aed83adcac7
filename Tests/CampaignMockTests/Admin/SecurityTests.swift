import CampaignMockSystem
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockModel
@testable import CampaignMockRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What keeps a mock on a developer's laptop safe from the web pages in the browser next to it, and from
/// what clients send (docs/security.md). The tests send with the Host and Origin they choose, through the
/// in-process harness: the checks are the app's, the same behind the listener. A stream's token goes over a
/// socket.
@Suite("laptop safety", .timeLimit(.minutes(2)))
struct SecurityTests {
    /// Sends one request with this Host and these header lines ("Name: value").
    private func send(
        _ live: some TestServer, _ method: String, _ path: String, host: String, headers: [String] = [],
        body: String? = nil
    ) throws -> (status: Int, headers: [String: String], body: String) {
        var fields = ["Host": host]
        for line in headers {
            let parts = line.split(separator: ":", maxSplits: 1)
            fields[String(parts[0])] = parts.dropFirst().first?.trimmingCharacters(in: .whitespaces) ?? ""
        }
        return try live.request(method, path, body: body ?? (method == "GET" ? nil : ""), headers: fields)
    }

    /// Sends one raw request over a socket and reads the answer.
    private func sendOverSocket(
        _ live: LiveServer, _ method: String, _ path: String, host: String, headers: [String] = [], body: String = ""
    ) throws -> RawResponse {
        let client = try RawHTTPClient(port: live.port)
        let extra = headers.map { $0 + "\r\n" }.joined()
        try client.send(
            "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\n\(extra)Content-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n\(body)")
        return try client.readResponse()
    }

    private func register(_ live: some TestServer, token: String = "c0ffee", host: String = "127.0.0.1") throws -> Int {
        try send(
            live, "POST", "/nms/mobile/1/registerIOS.jssp", host: host,
            headers: ["Content-Type: application/x-www-form-urlencoded"],
            body: "registrationToken=\(token)&mobileAppUuid=campaign-mock-demo-ios"
        ).status
    }

    @Test func aForeignHostReadsAndWipesNothing() throws {
        let live = try InProcessServer(inMemory: true)
        #expect(try register(live) == 200)
        for host in ["evil.example", "evil.example:\(live.port)", "127.0.0.1.evil.example", "localhost.evil.example"] {
            for path in [
                "/_mock/state", "/_mock/devices", "/_mock/requests", "/_mock/info", "/_mock/ui/", "/_mock/stream",
                "/_mock/metrics",
            ] {
                let response = try send(live, "GET", path, host: host)
                #expect(response.status == 403, "\(host) \(path)")
                #expect(response.body.contains("--allowed-host"), "\(host) \(path): \(response.body)")
            }
            #expect(try send(live, "POST", "/_mock/reset", host: host).status == 403)
        }
        #expect(try live.json("GET", "/_mock/devices").object["devices"] as? [Any] != nil)
        #expect((try live.json("GET", "/_mock/devices").object["devices"] as? [Any])?.count == 1)
        // Probes and the SDK's endpoints answer whatever the Host: apps use LAN names, tunnels, 10.0.2.2.
        #expect(try send(live, "GET", "/_mock/health", host: "evil.example").status == 200)
        #expect(try register(live, token: "other", host: "my-tunnel.example") == 200)
    }

    @Test func loopbackNamesAndAddressesAreAnswered() throws {
        let live = try InProcessServer(inMemory: true)
        for host in [
            "localhost", "LOCALHOST:\(live.port)", "127.0.0.1:\(live.port)", "[::1]:\(live.port)", "10.0.2.2:8080",
            "192.168.1.20", "app.localhost:\(live.port)", "localhost.",
        ] {
            #expect(try send(live, "GET", "/_mock/devices", host: host).status == 200, "\(host)")
        }
    }

    @Test func allowedHostsAddNamesAndDomains() throws {
        let live = try InProcessServer(inMemory: true) { $0.allowedHosts = ["mock.team.example", ".tunnel.example"] }
        #expect(try send(live, "GET", "/_mock/devices", host: "mock.team.example:8080").status == 200)
        #expect(try send(live, "GET", "/_mock/devices", host: "abc.tunnel.example").status == 200)
        #expect(try send(live, "GET", "/_mock/devices", host: "tunnel.example.evil").status == 403)
        #expect(try send(live, "GET", "/_mock/devices", host: "team.example").status == 403)
    }

    @Test func theRightTokenIsAnsweredWhateverTheHost() throws {
        let live = try InProcessServer(inMemory: true) { $0.adminToken = "s3cret-token" }
        let authorized = ["Authorization: Bearer s3cret-token"]
        #expect(try send(live, "GET", "/_mock/devices", host: "ci-runner.internal", headers: authorized).status == 200)
        #expect(try send(live, "GET", "/_mock/devices", host: "ci-runner.internal").status == 403)
        #expect(try send(live, "GET", "/_mock/devices", host: "localhost").status == 401)
    }

    @Test func crossSiteCallsAreRefusedAndTheConsolesOwnAreNot() throws {
        let live = try InProcessServer(inMemory: true)
        let host = "127.0.0.1:\(live.port)"
        let rule = #"{"endpoint":"any","status":500}"#
        let json = "Content-Type: application/json"
        for headers in [
            ["Origin: http://evil.example"], ["Origin: null"], ["Sec-Fetch-Site: cross-site"],
            ["Sec-Fetch-Site: same-site", "Origin: http://localhost:3000"], ["Origin: http://127.0.0.1:1"],
        ] {
            let response = try send(live, "POST", "/_mock/faults", host: host, headers: headers + [json], body: rule)
            #expect(response.status == 403, "\(headers)")
            #expect(response.body.contains("refused"), "\(headers): \(response.body)")
        }
        for path in ["/_mock/reset", "/_mock/apps", "/_mock/push"] {
            #expect(
                try send(live, "POST", path, host: host, headers: ["Origin: http://evil.example", json], body: "{}")
                    .status == 403)
        }
        #expect((try live.json("GET", "/_mock/faults").object["faults"] as? [Any])?.isEmpty == true)
        // The console's own page: same origin.
        let own = try send(
            live, "POST", "/_mock/faults", host: host,
            headers: ["Origin: http://\(host)", "Sec-Fetch-Site: same-origin", json], body: rule)
        #expect(own.status == 201)
        // A page cannot read an answer (no CORS), but a read may run a tool or read the whole store: refused
        // too. A URL opened by hand, and the console's files (a link from elsewhere opens it), are answered.
        #expect(
            try send(live, "GET", "/_mock/faults", host: host, headers: ["Sec-Fetch-Site: cross-site"]).status == 403)
        #expect(try send(live, "GET", "/_mock/faults", host: host, headers: ["Sec-Fetch-Site: none"]).status == 200)
        #expect(
            try send(live, "GET", "/_mock/ui/", host: host, headers: ["Sec-Fetch-Site: cross-site"]).status == 200)
    }

    @Test func theConsoleCannotBeFramed() throws {
        let live = try InProcessServer(inMemory: true)
        let response = try send(live, "GET", "/_mock/ui/", host: "localhost")
        #expect(response.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(response.headers["x-frame-options"] == "DENY")
    }

    @Test func tokensNeverReachTheLog() throws {
        for format in LogFormat.allCases {
            let log = try LogFile()
            let live = try LiveServer(inMemory: true, logger: log.logger(format)) { $0.adminToken = "s3cret-token" }
            #expect(
                try sendOverSocket(live, "GET", "/_mock/stream?access_token=wrong-s3cret", host: "localhost").status
                    == 401)
            #expect(
                try sendOverSocket(live, "GET", "/_mock/requests?ACCESS_TOKEN=x-s3cret", host: "localhost").status
                    == 401)
            let stream = try RawHTTPClient(port: live.port)
            try stream.send("GET /_mock/stream?type=push&access_token=s3cret-token HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try stream.readResponse(head: true).status == 200)
            #expect(
                try sendOverSocket(
                    live, "GET", "/_mock/devices", host: "x", headers: ["Authorization: Bearer s3cret-token"]
                )
                .status == 200)
            live.server.shutdown()
            let text = try log.text()
            #expect(text.contains("access_token=REDACTED"), "\(format): \(text)")
            #expect(text.contains("/_mock/devices"), "\(format): \(text)")
            #expect(!text.contains("s3cret"), "\(format): \(text)")
        }
    }

    @Test func whatAClientSendsCannotForgeALogLineOrDriveTheTerminal() throws {
        let log = try LogFile()
        let live = try InProcessServer(inMemory: true, logger: log.logger(.text))
        let key = "x%0A2026-01-01T00:00:00Z%20info%20forged%1B%5B2J%07%C2%9B"
        let response = try send(
            live, "POST", "/nms/mobile/1/registerIOS.jssp?k=%0D%0Aforged2", host: "localhost",
            headers: ["Content-Type: application/x-www-form-urlencoded"],
            body: "registrationToken=t&mobileAppUuid=\(key)")
        #expect(response.status == 404)
        live.app.shutdown()
        let bytes = try log.bytes()
        let lines = bytes.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == 1, "\(String(decoding: bytes, as: UTF8.self))")
        #expect(!bytes.contains(0x1B) && !bytes.contains(0x07) && !bytes.contains(0x0D))
        #expect(!String(decoding: bytes, as: UTF8.self).contains("\u{9B}"))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#"\n2026-01-01T00:00:00Z info forged\u{1B}[2J\u{7}\u{9B}"#), "\(text)")
    }

    @Test func dataFilesAreForTheirOwnerOnly() throws {
        let directory = TemporaryDirectory()
        let live = try InProcessServer(directory: directory)
        #expect(try register(live) == 200)
        let data = directory.path + "/data"
        #expect(mode(of: data) == 0o700)
        for file in [
            "campaign-mock.sqlite3", "campaign-mock.sqlite3-wal", "campaign-mock.sqlite3-shm",
            "campaign-mock.sqlite3-requests", "campaign-mock.lock",
        ] {
            #expect(mode(of: data + "/" + file) == 0o600, "\(file)")
        }
        // No server writes a redo log any more (a leftover one is read once at start, then removed).
        #expect(access(data + "/campaign-mock.sqlite3-redo", F_OK) != 0)
        live.app.shutdown()
        // Files an earlier version made 0644 are made owner-only at the next start.
        chmod(data + "/campaign-mock.sqlite3", 0o644)
        chmod(data + "/campaign-mock.sqlite3-requests", 0o644)
        let again = try InProcessServer(directory: directory)
        #expect(mode(of: data + "/campaign-mock.sqlite3") == 0o600)
        #expect(mode(of: data + "/campaign-mock.sqlite3-requests") == 0o600)
        again.app.shutdown()
    }

    @Test func duplicateKeysInAnAdminBodyAreRefused() throws {
        let live = try InProcessServer(inMemory: true)
        for body in [
            #"{"endpoint":"any","status":200,"status":500}"#, #"{"endpoint":"any","status":500,"st\u0061tus":200}"#,
        ] {
            let response = try live.request("POST", "/_mock/faults", body: body)
            #expect(response.status == 400)
            #expect(response.body.contains("field 'status' is given twice"), "\(response.body)")
        }
        let nested = try live.request(
            "PUT", "/_mock/state", body: #"{"version":1,"apps":[{"name":"a","name":"b"}]}"#)
        #expect(nested.status == 400)
        #expect(nested.body.contains("field 'name' is given twice in 'apps.0'"), "\(nested.body)")
        #expect(try live.request("POST", "/_mock/faults", body: #"{"endpoint":"any","status":500}"#).status == 201)
    }

    @Test func faultRulesAreBounded() throws {
        let live = try InProcessServer(inMemory: true)
        let large = String(repeating: "x", count: FaultRule.bodyLimit + 1)
        let tooLarge = try live.request(
            "POST", "/_mock/faults", body: #"{"endpoint":"any","status":500,"body":"\#(large)"}"#)
        #expect(tooLarge.status == 400)
        #expect(tooLarge.body.contains("body must be at most 64 KiB"))
        for _ in 0..<FaultRegistry.limit {
            try live.app.faults.add(FaultRule(endpoint: .tracking).with { $0.delayMs = 1 })
        }
        let one = try live.request("POST", "/_mock/faults", body: #"{"endpoint":"any","status":500}"#)
        #expect(one.status == 409)
        #expect(one.body.contains("DELETE /_mock/faults"))
        #expect(try live.request("DELETE", "/_mock/faults").status == 200)
        #expect(try live.request("POST", "/_mock/faults", body: #"{"endpoint":"any","status":500}"#).status == 201)
    }

    /// A damaged journal record is said in the log at start, naming the file, the ids lost and where
    /// the damaged file was kept; the requests after it are still there.
    @Test func aDamagedJournalIsNamedLoudlyAtStart() throws {
        let directory = TemporaryDirectory()
        var live = try InProcessServer(directory: directory)
        for token in ["t1", "t2", "t3"] { #expect(try register(live, token: token) == 200) }
        live.app.shutdown()
        let journal = directory.path + "/data/campaign-mock.sqlite3-requests"
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: journal)))
        let second = try #require(
            bytes.indices.filter { bytes[$0...].starts(with: Array("registrationToken=t2".utf8)) }.first)
        bytes[second] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: journal))
        let log = try LogFile()
        live = try InProcessServer(directory: directory, logger: log.logger(.text))
        let requests = try live.json("GET", "/_mock/requests").object["requests"] as? [[String: Any]] ?? []
        let bodies = requests.compactMap { $0["body"] as? String }
        #expect(
            bodies.contains { $0.contains("registrationToken=t1") }
                && bodies.contains { $0.contains("registrationToken=t3") })
        #expect(!bodies.contains { $0.contains("registrationToken=t2") })
        live.app.shutdown()
        let text = try log.text()
        #expect(text.contains("error request journal \(journal)"), "\(text)")
        #expect(text.contains("the entry with id 2 is lost"), "\(text)")
        #expect(text.contains("the damaged file is kept as \(journal).damaged-"), "\(text)")
    }

    private func mode(of path: String) -> mode_t {
        var status = stat()
        guard stat(path, &status) == 0 else { return 0 }
        return status.st_mode & 0o777
    }
}

/// A log written to a temporary file, read back whole.
private final class LogFile {
    let directory = TemporaryDirectory()
    let descriptor: Int32

    init() throws {
        descriptor = open(directory.path + "/log", O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw RawClientError("cannot open the log file") }
    }

    deinit { close(descriptor) }

    func logger(_ format: LogFormat) -> Logger { Logger(level: .info, format: format, descriptor: descriptor) }

    func bytes() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/log"))) }

    func text() throws -> String { String(decoding: try bytes(), as: UTF8.self) }
}

extension FaultRule {
    fileprivate func with(_ change: (inout FaultRule) -> Void) -> FaultRule {
        var rule = self
        change(&rule)
        return rule
    }
}
