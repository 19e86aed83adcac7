import CampaignMockNetwork
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockModel
@testable import CampaignMockRecording

extension TestServer {
    /// A mock with the SDK tests' applications that records into `directory`.
    static func recording(into directory: String, _ adjust: (inout Configuration) -> Void = { _ in }) throws -> Self {
        try withSDKApplications { configuration in
            configuration.recordDirectory = directory
            adjust(&configuration)
        }
    }

    /// SDK-style traffic: both registrations, a refused one, receive and open hits, the health pages,
    /// and a SOAP session that queries the devices. `withSecretHeaders` adds an Authorization header and
    /// a cookie to the open hit and a refused logon at the end, for the redaction test.
    func sendSDKSession(password: String = "admin", withSecretHeaders: Bool = false) throws {
        #expect(try register(.ios, SDKBodies.iOS).status == 200)
        #expect(try register(.android, SDKBodies.android).status == 200)
        #expect(
            try register(.ios, SDKBodies.iOS.replacingOccurrences(of: "=integrationKey", with: "=ghostKey")).status
                == 404)
        #expect(try request("GET", "/r/?id=hd7e15e5c,7a001,1").status == 200)
        let secretHeaders = ["Authorization": "Bearer Bearer-secret-value", "Cookie": "tracking=cookie-secret-value"]
        #expect(
            try request("GET", "/r/?id=hd7e15e5c,7a001,2", headers: withSecretHeaders ? secretHeaders : [:]).status
                == 200)
        #expect(try request("GET", "/nl/jsp/ping.jsp").status == 200)
        var client = SOAPTestClient(live: self)
        #expect(try client.logon(password: password).status == 200)
        let query = try client.query(
            """
            <queryDef schema='nms:appSubscriptionRcp' operation='select'><select><node expr='@registrationToken'/>\
            <node expr='@userKey'/><node expr='@created'/></select><orderBy><node expr='@id'/></orderBy></queryDef>
            """)
        #expect(query.reply.status == 200)
        if withSecretHeaders { #expect(try client.logon(password: "wrong").status == 500) }
    }
}

/// Replays every exchange file of `directory` against `live` and returns the results.
private func replay(_ directory: String, against live: LiveServer, secrets: [String: String]) throws
    -> [Replayer.Result]
{
    var bindings = Bindings()
    for (name, value) in secrets { bindings.setSecret(name, value) }
    var replayer = Replayer(
        target: try HTTPClient.Endpoint(url: "http://127.0.0.1:\(live.port)"), bindings: bindings,
        ignoredHeaders: [], tls: nil)
    return try ExchangeFiles.list(directory).map { file in
        replayer.replay(try Exchange.read(path: file), file: file)
    }
}

private let sdkSecrets = [
    "integrationKey-1": "integrationKey", "integrationKey-2": "testIntegrationKey", "password-1": "admin",
]

@Suite("record and replay", .timeLimit(.minutes(2)))
struct RecordReplayTests {
    @Test func aRecordedSessionReplaysCleanlyAndAFaultShowsAsExactlyOneMismatch() throws {
        let directory = TemporaryDirectory()
        let live = try LiveServer.recording(into: directory.path + "/recording")
        try live.sendSDKSession()
        let recording = directory.path + "/recording"
        let names = ExchangeFiles.list(recording).map { $0.split(separator: "/").last.map(String.init) ?? "" }
        #expect(
            names == [
                "0001-registerIOS-200.json", "0002-registerAndroid-200.json", "0003-registerIOS-404.json",
                "0004-tracking-200.json", "0005-tracking-200.json", "0006-ping-200.json", "0007-soap-Logon-200.json",
                "0008-soap-ExecuteQuery-200.json",
            ])

        // Replay against a fresh mock, so the recording directory stays as it was.
        let target = try LiveServer.withSDKApplications()
        let results = try replay(recording, against: target, secrets: sdkSecrets)
        #expect(results.count == 8)
        for result in results where !result.passed { Issue.record("\(Replayer.report(result))") }

        #expect(try target.request("POST", "/_mock/reset").status == 200)
        _ = try target.addFault(#"{"endpoint":"tracking","status":503,"body":"tracking is down"}"#)
        let broken = try replay(recording, against: target, secrets: sdkSecrets)
        let failed = broken.filter { !$0.passed }
        #expect(failed.map { $0.file.hasSuffix("-tracking-200.json") } == [true, true])
        #expect(
            failed.first?.differences == [
                "status: expected 200, got 503", #"body: expected none, got "tracking is down""#,
            ])
    }

    @Test func noSecretOfTheTrafficAppearsInTheRecording() throws {
        let directory = TemporaryDirectory()
        let live = try InProcessServer.recording(into: directory.path) { configuration in
            configuration.soapPassword = "pa55-w0rd!"
            configuration.adminToken = nil
        }
        try live.sendSDKSession(password: "pa55-w0rd!", withSecretHeaders: true)
        let secrets = [
            "integrationKey", "testIntegrationKey", "ghostKey", "70757368546f6b656e", "testToken", "userkey",
            "testUser", "pa55-w0rd!", "pa55-w0rd%21", "Bearer-secret-value", "cookie-secret-value",
        ]
        let files = ExchangeFiles.list(directory.path)
        #expect(files.count == 9)
        var sessionTokens: [String] = []
        for file in files {
            // Placeholders name their kind ("redacted-integrationKey-1"); the SDK tests' key is "integrationKey".
            let text = try String(contentsOfFile: file, encoding: .utf8).replacing(Bindings.placeholder, with: "")
            for secret in secrets {
                #expect(!text.contains(secret), "\(secret) appears in \(file)")
            }
            sessionTokens += text.matches(of: #/___[0-9A-Fa-f-]{36}/#).map { String($0.output) }
            #expect(!text.contains("@") || !text.contains(#/@[A-Za-z0-9+/=]{40,}/#), "a security token in \(file)")
        }
        #expect(sessionTokens.isEmpty)
        let logon = try String(contentsOfFile: files[6], encoding: .utf8)
        #expect(logon.contains("redacted-sessionToken-1") && logon.contains("redacted-securityToken-1"))
        // The same secret keeps its placeholder across files.
        let query = try String(contentsOfFile: files[7], encoding: .utf8)
        #expect(query.contains("<urn:sessiontoken>redacted-sessionToken-1</urn:sessiontoken>"))
        #expect(query.contains("X-Security-Token: redacted-securityToken-1"))
        #expect(query.contains(#"registrationToken=\"redacted-registrationToken-1\""#))
    }

    @Test func withoutRedactionTheSessionTokenIsLearnedFromTheReplayedLogon() throws {
        let directory = TemporaryDirectory()
        let live = try LiveServer.recording(into: directory.path) { $0.redactRecordings = false }
        try live.sendSDKSession()
        let first = try String(contentsOfFile: ExchangeFiles.list(directory.path)[0], encoding: .utf8)
        #expect(first.contains("mobileAppUuid=integrationKey"))
        let results = try replay(directory.path, against: try LiveServer.withSDKApplications(), secrets: [:])
        for result in results where !result.passed { Issue.record("\(Replayer.report(result))") }
        #expect(results.count == 8)
    }

    @Test func refusesADirectoryThatHoldsARecording() throws {
        let directory = TemporaryDirectory()
        let live = try InProcessServer.recording(into: directory.path)
        #expect(try live.request("GET", "/nl/jsp/ping.jsp").status == 200)
        #expect(throws: ExchangeFileError.self) { try InProcessServer.recording(into: directory.path) }
    }

    @Test func adminCallsAreNotRecordedAndFilesAreWholeJSON() throws {
        let directory = TemporaryDirectory()
        let live = try InProcessServer.recording(into: directory.path)
        #expect(try live.request("GET", "/_mock/health").status == 200)
        #expect(try live.request("GET", "/no/such/page").status == 404)
        let files = ExchangeFiles.list(directory.path)
        #expect(files == [directory.path + "/0001-page-404.json"])
        let exchange = try Exchange.read(path: try #require(files.first))
        #expect(exchange.request.target == "/no/such/page")
        #expect(exchange.response.body == "no Campaign endpoint at /no/such/page")
    }
}
