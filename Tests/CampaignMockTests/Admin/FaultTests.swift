import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockModel
@testable import CampaignMockRuntime
@testable import CampaignMockStorage

extension TestServer {
    func addFault(_ json: String) throws -> [String: Any] {
        let response = try self.json("POST", "/_mock/faults", body: json)
        guard response.status == 201 else { throw RawClientError("fault refused: \(response.object)") }
        return response.object
    }
}

extension LiveServer {
    /// Registers over a raw socket (so dropped and reset connections show), returning the status or nil.
    func rawRegister(_ body: String = SDKBodies.iOS, path: String = "/nms/mobile/1/registerIOS.jssp") -> (Int?, Int32) {
        guard let client = try? RawHTTPClient(port: port) else { return (nil, 0) }
        try? client.send(
            "POST \(path) HTTP/1.1\r\nHost: m\r\nContent-Type: \(SDKBodies.contentType)\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        do {
            return (try client.readResponse().status, 0)
        } catch let error as RawClientError where error.description.contains("reset") {
            return (nil, ECONNRESET)
        } catch {
            return (nil, 0)
        }
    }
}

@Suite("fault injection", .timeLimit(.minutes(2)))
struct FaultTests {
    @Test func aRuleMatchesItsFamilyOrEveryOne() {
        #expect(EndpointFamily.any.matches(.unknown))
        #expect(EndpointFamily.tracking.matches(.tracking))
        #expect(!EndpointFamily.tracking.matches(.soap))
        #expect(!EndpointFamily.unknown.matches(.health))
        #expect(EndpointFamily.registration(.ios) == .registrationIOS)
        #expect(EndpointFamily.registration(.android).isRegistration)
        #expect(!EndpointFamily.tracking.isRegistration)
    }

    @Test func answersWithTheConfiguredStatusAndBodyAndJournalsTheFiring() throws {
        let live = try InProcessServer.withSDKApplications()
        _ = try live.addFault(#"{"endpoint":"registration-ios","status":500,"body":"Internal error"}"#)
        let response = try live.register(.ios, SDKBodies.iOS)
        #expect(response.status == 500)
        #expect(response.body == "Internal error")
        #expect(try live.storedRows() == [0, 0, 0])
        #expect(try live.lastJournalEntry()?.reason == "fault f1 fired: status 500")
        let listed = try live.json("GET", "/_mock/faults").object["faults"] as? [[String: Any]]
        #expect(listed?.first?["fired"] as? Int == 1)
        #expect(
            try live.request("GET", "/_mock/metrics").body.contains("campaign_mock_faults_fired_total{rule=\"f1\"} 1"))
    }

    @Test func delaysThenHandlesNormally() throws {
        let live = try InProcessServer.withSDKApplications()
        _ = try live.addFault(#"{"endpoint":"tracking","delayMs":400}"#)
        let started = Date()
        #expect(try live.request("GET", "/r/?id=h1,d,1").status == 200)
        #expect(Date().timeIntervalSince(started) >= 0.4)
        #expect(try live.events().count == 1)
        #expect(try live.lastJournalEntry()?.reason == "fault f1 fired: delay 400 ms")
    }

    @Test func dropsAndResetsConnections() throws {
        let live = try LiveServer.withSDKApplications()
        _ = try live.addFault(#"{"endpoint":"registration-ios","drop":true,"times":1}"#)
        _ = try live.addFault(#"{"endpoint":"registration-ios","reset":true,"times":1}"#)
        let dropped = live.rawRegister()
        #expect(dropped.0 == nil && dropped.1 == 0)
        let reset = live.rawRegister()
        #expect(reset.0 == nil && reset.1 == ECONNRESET)
        #expect(live.rawRegister().0 == 200)
        #expect(try live.storedRows()[0] == 1)
        let reasons = try live.app.store.read { try $0.journalPage(after: 0, limit: 10).requests.map(\.reason) }
        #expect(reasons == ["fault f1 fired: drop", "fault f2 fired: reset", nil])
        // In the metrics, a dropped or reset registration is rejected by a fault, like a faked status.
        let metrics = try live.request("GET", "/_mock/metrics").body
        #expect(metrics.contains("campaign_mock_registrations_total{result=\"rejected\",reason=\"fault\"} 2"))
        #expect(!metrics.contains("status_0"))
    }

    @Test func firesAfterSkippingThenAFixedNumberOfTimes() throws {
        let live = try InProcessServer.withSDKApplications()
        _ = try live.addFault(#"{"endpoint":"any","status":503,"after":2,"times":3}"#)
        let statuses = try (0..<8).map { index in try live.request("GET", "/r/?id=h\(index + 1),d,1").status }
        #expect(statuses == [200, 200, 503, 503, 503, 200, 200, 200])
    }

    @Test func probabilityWithASeedIsReproducible() throws {
        func sequence() throws -> [Int] {
            let live = try InProcessServer.withSDKApplications()
            _ = try live.addFault(#"{"endpoint":"tracking","status":502,"probability":0.5,"seed":42}"#)
            return try (0..<40).map { index in try live.request("GET", "/r/?id=h\(index + 1),d,1").status }
        }
        let first = try sequence()
        #expect(first == (try sequence()))
        #expect(first.contains(502) && first.contains(200))
    }

    @Test func matchesOnAppKeyTokenAndMethod() throws {
        let live = try InProcessServer.withSDKApplications()
        _ = try live.addFault(
            #"{"endpoint":"registration-android","appKey":"testIntegrationKey","token":"testToken","status":404}"#)
        _ = try live.addFault(#"{"endpoint":"tracking","method":"HEAD","status":500}"#)
        #expect(try live.register(.android, SDKBodies.android).status == 404)
        let otherToken = SDKBodies.android.replacingOccurrences(of: "testToken", with: "otherToken")
        #expect(try live.register(.android, otherToken).status == 200)
        #expect(try live.request("GET", "/r/?id=h1,d,1").status == 200)
        #expect(try live.request("HEAD", "/r/?id=h1,d,1").status == 500)
    }

    @Test func matchesTrackingHitsByTheDeviceTheirMessageWentTo() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        try live.issueMessage("55336", delivery: "d", token: "70757368546f6b656e")
        _ = try live.addFault(#"{"endpoint":"tracking","token":"70757368546f6b656e","status":500}"#)
        #expect(try live.request("GET", "/r/?id=hd828,d,2").status == 500)
        #expect(try live.request("GET", "/r/?id=h1,d,2").status == 200)
    }

    @Test func neverAppliesToTheAdminAPI() throws {
        let live = try InProcessServer(inMemory: true)
        _ = try live.addFault(#"{"endpoint":"any","status":500}"#)
        #expect(try live.request("GET", "/_mock/health").status == 200)
        #expect(try live.request("GET", "/nl/jsp/ping.jsp").status == 500)
    }

    @Test func loadsRulesFromTheConfiguration() throws {
        var rule = FaultRule(endpoint: .registrationIOS)
        rule.status = 503
        let live = try InProcessServer.withSDKApplications { $0.faultRules = [rule] }
        #expect(try live.register(.ios, SDKBodies.iOS).status == 503)
    }

    @Test(arguments: [
        (#"{"endpoint":"tracking"}"#, "a rule needs an action: status, delayMs, drop or reset"),
        (#"{"endpoint":"tracking","status":700}"#, "status must be 100-599"),
        (#"{"endpoint":"tracking","drop":true,"reset":true}"#, "choose one of status, drop and reset"),
        (#"{"endpoint":"tracking","status":500,"probability":2}"#, "probability must be 0-1"),
        (#"{"endpoint":"tracking","status":500,"seed":1}"#, "seed goes with probability"),
        (
            #"{"endpoint":"nowhere","status":500}"#,
            "field 'endpoint' has an invalid value: 'nowhere' is not one of registration-ios, registration-android, "
                + "tracking, soap, health, unknown, any"
        ),
        (#"{"status":500}"#, "missing field 'endpoint'"),
        (#"{"endpoint":"tracking","status":500,"delayms":5}"#, "unknown field 'delayms'"),
        (#"{"endpoint":"tracking","status":500,"token":null}"#, "field 'token' is null; leave it out instead"),
        (#"{"endpoint":"tracking","status":500,"id":"a b"}"#, "id must be 1 to 64 of A-Z a-z 0-9 _ . -"),
    ])
    func refusesInvalidRules(_ json: String, _ message: String) throws {
        let live = try InProcessServer(inMemory: true)
        let response = try live.json("POST", "/_mock/faults", body: json)
        #expect(response.status == 400)
        #expect((response.object["error"] as? String)?.contains(message) == true, "\(response.object)")
    }

    @Test func removesRules() throws {
        let live = try InProcessServer(inMemory: true)
        _ = try live.addFault(#"{"endpoint":"tracking","status":500,"id":"mine"}"#)
        #expect(
            try live.json("POST", "/_mock/faults", body: #"{"endpoint":"tracking","status":500,"id":"mine"}"#).status
                == 409)
        #expect(try live.json("DELETE", "/_mock/faults/mine").status == 200)
        #expect(try live.json("DELETE", "/_mock/faults/mine").status == 404)
        _ = try live.addFault(#"{"endpoint":"tracking","status":500}"#)
        #expect(try live.json("DELETE", "/_mock/faults").object["deleted"] as? Int == 1)
        #expect(try live.request("GET", "/r/?id=h1,d,1").status == 200)
    }
}
