import CampaignMockHTTP
import CampaignMockModel
import CampaignMockRuntime
import CampaignMockSystem
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock

/// The integration checks of a running server, over real sockets: the SDKs' own requests (docs/protocol.md
/// §3.5, §4.4) leave no finding, each family of mistakes leaves its finding in `GET /_mock/checks` and a
/// `check` event on the stream, and a reset or a removed fault rule clears them.
@Suite("integration checks, docs/checks.md", .timeLimit(.minutes(2)))
struct ChecksLiveTests {
    static let androidAgent = "Mozilla/5.0 (Linux; U; Android 14; en-US; Pixel 8 Build/AP1A)"

    /// A server with the SDK test applications and no grace for an open's receive (the hits of a test come
    /// in order, so none is needed; the engine's tests cover the grace itself).
    static func server() throws -> LiveServer {
        try LiveServer.withSDKApplications { $0.checkOpenGraceMilliseconds = 0 }
    }

    static func report(_ live: LiveServer, _ query: String = "") throws -> CheckReport {
        let response = try live.request("GET", "/_mock/checks" + query)
        #expect(response.status == 200, "\(response.body)")
        return try JSONDecoder().decode(CheckReport.self, from: Data(response.body.utf8))
    }

    /// Composes a push for `token` and returns its message's tracking paths.
    static func compose(_ live: LiveServer, token: String, _ fields: String = #""title": "Sale""#) throws
        -> ComposedMessage.Tracking
    {
        let response = try live.request("POST", "/_mock/push", body: #"{"token": "\#(token)", \#(fields)}"#)
        #expect(response.status == 201, "\(response.body)")
        return try JSONDecoder().decode(ComposedPush.self, from: Data(response.body.utf8)).messages[0].tracking
    }

    @Test func theSDKsOwnTrafficLeavesNoFinding() throws {
        let live = try Self.server()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        // A correct Android app: the receive in onMessageReceived, then the open on the tap.
        let android = try Self.compose(live, token: "testToken")
        for path in [android.receive, android.open] {
            #expect(try live.request("GET", path, headers: ["User-Agent": Self.androidAgent]).status == 200)
        }
        // A silent iOS push: its receive, and no open.
        let silent = try Self.compose(live, token: "70757368546f6b656e", #""silent": true"#)
        #expect(try live.request("GET", silent.receive).status == 200)
        let report = try Self.report(live, "?severity=info")
        #expect(report.findings.isEmpty, "\(report.findings.map(\.message))")
    }

    @Test func registrationMistakesAreFoundAndExplained() throws {
        let live = try Self.server()
        // The Android build with a typo in its key, then with the iOS build's APNs token.
        let typo = SDKBodies.android.replacingOccurrences(of: "testIntegrationKey", with: "testIntegrationKee")
        #expect(try live.register(.android, typo).status == 404)
        let apns = SDKBodies.android.replacingOccurrences(
            of: "registrationToken=testToken", with: "registrationToken=" + DeviceTokens.apns)
        #expect(try live.register(.android, apns).status == 200)
        let report = try Self.report(live)
        #expect(report.counts.error == 2)
        let refused = try #require(report.findings.first { $0.rule == "registration-refused" })
        #expect(refused.message.contains("'testIntegrationKee'") && refused.message.contains("'testIntegrationKey'"))
        #expect(refused.app == "testIntegrationKee" && refused.platform == .android)
        #expect(refused.evidence.requestIds.count == 1)
        let journaled = try live.request("GET", "/_mock/requests/\(refused.evidence.requestIds[0])")
        #expect(journaled.status == 200 && journaled.body.contains("testIntegrationKee"))
        let mismatch = try #require(report.findings.first { $0.rule == "token-platform-mismatch" })
        #expect(mismatch.registrationToken == DeviceTokens.apns && mismatch.app == "testIntegrationKey")
        // The filters.
        #expect(try Self.report(live, "?app=testIntegrationKee").findings.map(\.rule) == ["registration-refused"])
        #expect(try Self.report(live, "?token=\(DeviceTokens.apns)").findings.count == 1)
        #expect(try Self.report(live, "?since=2999-01-01T00:00:00Z").findings.isEmpty)
        // A reset forgets them.
        #expect(try live.request("POST", "/_mock/reset").status == 200)
        #expect(try Self.report(live).findings.isEmpty)
    }

    @Test func trackingMistakesAreFoundAndExplained() throws {
        let live = try Self.server()
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        // The open comes without a receive: onMessageReceived tracks nothing.
        let first = try Self.compose(live, token: "testToken")
        #expect(try live.request("GET", first.open, headers: ["User-Agent": Self.androidAgent]).status == 200)
        // Two handlers track the receive of the next one.
        let second = try Self.compose(live, token: "testToken")
        for _ in 0..<2 { #expect(try live.request("GET", second.receive).status == 200) }
        // And the SDK's own vector, for a message this mock never composed.
        #expect(try live.request("GET", "/r/?id=h3039,testDeliveryId,1").status == 200)
        let report = try Self.report(live)
        #expect(
            report.findings.map(\.rule).sorted() == ["duplicate-hit", "open-without-receive", "unknown-message"])
        let missing = try #require(report.findings.first { $0.rule == "open-without-receive" })
        #expect(missing.severity == .error && missing.registrationToken == "testToken")
        #expect(missing.fix.contains("onMessageReceived"))
        // The receive arrives after all: the finding clears.
        #expect(try live.request("GET", first.receive).status == 200)
        #expect(try Self.report(live).findings.map(\.rule).sorted() == ["duplicate-hit", "unknown-message"])
    }

    /// The endpoint hands the checks each refusal's cause as a type, and the pipeline the rule that only
    /// delayed the requests: each cause has its finding, and the delay none.
    @Test func eachCauseOfARefusalIsTheEndpointsOwnThroughADelayingFault() throws {
        let live = try Self.server()
        let rule = try live.request(
            "POST", "/_mock/faults", body: #"{"id": "slow", "endpoint": "registration-android", "delayMs": 1}"#)
        #expect(rule.status == 201)
        let bodies = [
            SDKBodies.android.replacingOccurrences(of: "mobileAppUuid=testIntegrationKey", with: "mobileAppUuid="),
            SDKBodies.android.replacingOccurrences(of: "registrationToken=testToken", with: "registrationToken="),
            SDKBodies.android.replacingOccurrences(of: "testIntegrationKey", with: "integrationKey"),
            SDKBodies.android + "&userKey=again",
        ]
        for body in bodies { #expect(try live.register(.android, body).status == 400) }
        let ids = try Self.report(live).findings.map(\.id).sorted()
        #expect(
            ids == [
                "registration-refused:android:malformed", "registration-refused:android:missing-key",
                "registration-refused:android:missing-token", "registration-refused:android:wrong-platform",
            ])
        let wrong = try #require(try Self.report(live).findings.first { $0.id.hasSuffix("wrong-platform") })
        #expect(wrong.message.contains("(Integration key integrationKey belongs to an iOS application)"))
    }

    @Test func anInjectedFaultIsNamedAndClearsWithItsRule() throws {
        let live = try Self.server()
        let rule = try live.request(
            "POST", "/_mock/faults", body: #"{"id": "maintenance", "endpoint": "registration-android", "status": 503}"#)
        #expect(rule.status == 201)
        #expect(try live.register(.android, SDKBodies.android).status == 503)
        let finding = try #require(try Self.report(live).findings.first)
        #expect(finding.rule == "fault-active" && finding.severity == .info)
        #expect(finding.fix.contains("DELETE /_mock/faults/maintenance"))
        #expect(try live.request("DELETE", "/_mock/faults/maintenance").status == 200)
        #expect(try Self.report(live).findings.isEmpty)
    }

    @Test func aFindingIsAStreamEvent() throws {
        let live = try Self.server()
        let reader = try StreamReader(port: live.port, query: "?type=check")
        while live.app.stream.count == 0 { usleep(1000) }
        #expect(
            try live.register(.ios, SDKBodies.iOS.replacingOccurrences(of: "=integrationKey", with: "=integrationKy"))
                .status == 404)
        let events = try reader.read { $0.contains { $0.type == "check" } }
        let change = try JSONDecoder().decode(CheckChange.self, from: Data(try #require(events.first).data.utf8))
        #expect(change.change == .appeared && change.finding.rule == "registration-refused")
        #expect(change.finding.message.contains("'integrationKey'"))
    }

    @Test func badFiltersAreRefusedWithTheReason() throws {
        let live = try Self.server()
        for (query, words) in [
            ("?severity=fatal", "severity must be one of"), ("?since=yesterday", "since must be"),
            ("?rule=x", "unknown parameter 'rule'"),
        ] {
            let response = try live.request("GET", "/_mock/checks" + query)
            #expect(response.status == 400 && response.body.contains(words), "\(query): \(response.body)")
        }
    }
}
