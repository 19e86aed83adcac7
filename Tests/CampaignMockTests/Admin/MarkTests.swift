import CampaignMock
import CampaignMockModel
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

/// `POST /_mock/mark` and every `since` that takes a mark, over real sockets: a test's mark counts what
/// came after it and nothing before, for the waits, the listings, the checks and the stream, without a
/// reset between tests (docs/admin-api.md#marks).
@Suite("POST /_mock/mark", .timeLimit(.minutes(2)))
struct MarkTests {
    static func mark(_ live: LiveServer) throws -> String {
        let answer = try live.json("POST", "/_mock/mark")
        #expect(answer.status == 200, "\(answer.object)")
        return try #require(answer.object["mark"] as? String)
    }

    /// The iOS SDK's registration with another token (a second device).
    static func iOS(token: String, userKey: String = "userkey") -> String {
        SDKBodies.iOS.replacingOccurrences(of: "70757368546f6b656e", with: token)
            .replacingOccurrences(of: "userKey=userkey", with: "userKey=\(userKey)")
    }

    @Test func aMarkIsMAndDigitsAndEachIsNew() throws {
        let live = try LiveServer.withSDKApplications()
        let first = try Self.mark(live)
        let second = try Self.mark(live)
        #expect(first.first == "m" && first.dropFirst().allSatisfy(\.isNumber) && first.count > 1)
        #expect(first != second)
    }

    @Test func aWaitSinceAMarkCountsOnlyWhatCameAfterIt() throws {
        let live = try LiveServer.withSDKApplications()
        #expect(try live.register(.ios, Self.iOS(token: "aa01")).status == 200)
        let mark = try Self.mark(live)
        // What came before the mark is not counted, even by a wait called after both.
        #expect(try live.register(.ios, Self.iOS(token: "aa02")).status == 200)
        let wait = try live.json("GET", "/_mock/wait?for=registration&since=\(mark)&count=2&timeout=200ms")
        #expect(wait.status == 408)
        #expect(wait.object["count"] as? Int == 1)
        let items = try #require(wait.object["items"] as? [[String: Any]])
        #expect(items.map { $0["registrationToken"] as? String } == ["aa02"])
        let one = try live.json("GET", "/_mock/wait?for=registration&since=\(mark)&timeout=1s")
        #expect(one.status == 200)
    }

    /// The AEP extension does not send a registration identical to its last one: a wait since the mark of
    /// the second test names the device registered before, and says why nothing came.
    @Test func aRegistrationWaitSinceAMarkNamesTheDeviceRegisteredBeforeIt() throws {
        let live = try LiveServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let mark = try Self.mark(live)
        let wait = try live.json(
            "GET", "/_mock/wait?for=registration&app=integrationKey&since=\(mark)&timeout=100ms")
        #expect(wait.status == 408)
        let error = try #require(wait.object["error"] as? String)
        #expect(error.contains("saw 0 of 1 registration since mark \(mark)"), "\(error)")
        #expect(error.contains("1 matching registration arrived before the mark"), "\(error)")
        #expect(error.contains("token 70757368546f6b656e"), "\(error)")
        let newest = try #require((wait.object["earlier"] as? [String: Any])?["newest"] as? [String: Any])
        #expect(error.contains("at \(newest["receivedAt"] as? String ?? "?")"))
        #expect(error.contains("sends no registration identical to its last one"), "\(error)")
        #expect(error.contains("across launches"))
    }

    @Test func theListingsTakeAMark() throws {
        let live = try LiveServer.withSDKApplications()
        #expect(try live.request("GET", "/r/?id=h3039,d,1").status == 200)
        let mark = try Self.mark(live)
        #expect(try live.request("GET", "/r/?id=h303a,d,2").status == 200)
        let events = try live.json("GET", "/_mock/events?since=\(mark)")
        #expect(events.status == 200)
        let listed = try #require(events.object["events"] as? [[String: Any]])
        #expect(listed.count == 1 && listed.first?["type"] as? String == "open")
        let requests = try live.json("GET", "/_mock/requests?since=\(mark)&endpoint=tracking")
        #expect((requests.object["requests"] as? [[String: Any]])?.count == 1)
        let all = try live.json("GET", "/_mock/requests?endpoint=tracking")
        #expect((all.object["requests"] as? [[String: Any]])?.count == 2)
    }

    /// A finding belongs to the test whose request it rests on, whenever it fires: an open of test 1 whose
    /// receive never comes fires after test 2 took its mark, and is listed since test 1's mark only.
    @Test func aFindingCountsSinceAMarkByItsEvidence() throws {
        let live = try LiveServer.withSDKApplications { $0.checkOpenGraceMilliseconds = 300 }
        let first = try Self.mark(live)
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        let push = try live.json("POST", "/_mock/push", body: #"{"token": "testToken", "title": "Sale"}"#)
        #expect(push.status == 201)
        let tracking = try #require(
            ((push.object["messages"] as? [[String: Any]])?.first?["tracking"] as? [String: Any])?["open"]
                as? String)
        #expect(try live.request("GET", tracking).status == 200)
        let second = try Self.mark(live)
        usleep(600_000)
        func rules(_ since: String) throws -> [String] {
            let report = try live.json("GET", "/_mock/checks?severity=info&since=\(since)")
            #expect(report.status == 200)
            return (report.object["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
        }
        #expect(try rules(first).contains("open-without-receive"))
        #expect(try !rules(second).contains("open-without-receive"))
        // A finding of test 2 is listed since its mark.
        let typo = SDKBodies.android.replacingOccurrences(of: "testIntegrationKey", with: "testIntegrationKee")
        #expect(try live.register(.android, typo).status == 404)
        #expect(try rules(second) == ["registration-refused"])
    }

    @Test func aMarkFromBeforeAResetIsRefusedAndSaysWhy() throws {
        let live = try LiveServer.withSDKApplications()
        let before = try Self.mark(live)
        #expect(try live.request("POST", "/_mock/reset?only=faults").status == 200)
        #expect(try live.request("GET", "/_mock/events?since=\(before)").status == 200)
        #expect(try live.request("POST", "/_mock/reset?only=devices").status == 200)
        for path in [
            "/_mock/events", "/_mock/requests", "/_mock/checks", "/_mock/wait?for=open&timeout=100ms&",
        ] {
            let separator = path.hasSuffix("&") ? "" : "?"
            let refused = try live.json("GET", "\(path)\(separator)since=\(before)")
            #expect(refused.status == 400, "\(path)")
            let error = refused.object["error"] as? String ?? ""
            #expect(error.contains("mark \(before) was taken before the reset at"), "\(error)")
        }
        let after = try Self.mark(live)
        #expect(try live.request("GET", "/_mock/events?since=\(after)").status == 200)
    }

    @Test func aMarkFromBeforeAStateImportIsRefused() throws {
        let live = try LiveServer.withSDKApplications()
        let snapshot = try live.request("GET", "/_mock/state")
        #expect(snapshot.status == 200)
        let before = try Self.mark(live)
        #expect(try live.request("PUT", "/_mock/state", body: snapshot.body).status == 200)
        let refused = try live.json("GET", "/_mock/requests?since=\(before)")
        #expect(refused.status == 400)
        #expect((refused.object["error"] as? String)?.contains("taken before the state import at") == true)
    }

    @Test func aMarkTheServerDidNotHandOutIsRefused() throws {
        let live = try LiveServer.withSDKApplications()
        let unknown = try live.json("GET", "/_mock/events?since=m1")
        #expect(unknown.status == 400)
        #expect((unknown.object["error"] as? String)?.contains("not handed out by this run of the server") == true)
        let garbled = try live.json("GET", "/_mock/checks?since=m12x")
        #expect(garbled.status == 400)
        #expect((garbled.object["error"] as? String)?.contains("is not a mark") == true)
    }

    /// Findings are the record of the whole run: a reset of stored rows keeps them; one that asks clears them.
    @Test func findingsLastUntilAResetAsksForThem() throws {
        let live = try LiveServer.withSDKApplications()
        let typo = SDKBodies.android.replacingOccurrences(of: "testIntegrationKey", with: "testIntegrationKee")
        #expect(try live.register(.android, typo).status == 404)
        func count() throws -> Int { (try live.json("GET", "/_mock/checks").object["findings"] as? [Any])?.count ?? -1 }
        #expect(try count() == 1)
        #expect(try live.request("POST", "/_mock/reset?only=journal,events,devices").status == 200)
        #expect(try count() == 1)
        let cleared = try live.json("POST", "/_mock/reset?only=findings")
        #expect((cleared.object["deleted"] as? [String: Any])?["findings"] as? Int == 1)
        #expect(try count() == 0)
        #expect(try live.register(.android, typo).status == 404)
        #expect(try live.request("POST", "/_mock/reset").status == 200)
        #expect(try count() == 0)
    }

    @Test func theStreamTakesAMark() throws {
        let live = try LiveServer.withSDKApplications()
        #expect(try live.register(.ios, Self.iOS(token: "bb01")).status == 200)
        let mark = try Self.mark(live)
        #expect(try live.register(.ios, Self.iOS(token: "bb02")).status == 200)
        let reader = try StreamReader(port: live.port, query: "?type=registration&since=\(mark)")
        #expect(reader.head.status == 200)
        let events = try reader.read { $0.count >= 1 }
        #expect(events.count == 1)
        #expect(events.first?.data.contains("bb02") == true)
    }
}
