import CampaignMockRuntime
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Synchronization
import Testing

@testable import CampaignMock
@testable import CampaignMockModel

/// The admin API's lists at a long-lived instance's volume: newest first, keyset paging, totals, search
/// and the journal's answers (docs/admin-api.md).
@Suite(.timeLimit(.minutes(2)))
struct ListingTests {
    /// 2,500 devices in two applications, registered through the endpoint.
    static func manyDevices() throws -> InProcessServer {
        let live = try InProcessServer.withSDKApplications()
        for index in 0..<2500 {
            let (platform, key) = index % 5 == 0 ? (Platform.android, "testIntegrationKey") : (.ios, "integrationKey")
            let model = index % 100 == 0 ? "Pixel%208" : "iPhone15%2C2"
            let body =
                "registrationToken=t\(index)&mobileAppUuid=\(key)&userKey=user\(index % 50)%40example.com"
                + "&deviceModel=\(model)&osName=\(platform == .ios ? "iOS" : "android")&osVersion=17.\(index % 3)"
                + "&additionalParams=%3CadditionalParams%3E%3Cparam%20name%3D%22plan%22%20value%3D%22"
                + (index % 7 == 0 ? "gold" : "silver") + "%22%2F%3E%3C%2FadditionalParams%3E"
            #expect(try live.register(platform, body).status == 200)
        }
        return live
    }

    func tokens(_ live: some TestServer, _ query: String) throws -> (tokens: [String], total: Int?, next: Int?) {
        let page = try live.json("GET", "/_mock/devices?" + query)
        #expect(page.status == 200, "\(page.object)")
        let devices = page.object["devices"] as? [[String: Any]] ?? []
        return (
            devices.compactMap { $0["registrationToken"] as? String }, page.object["total"] as? Int,
            page.object["nextCursor"] as? Int
        )
    }

    @Test func pagesThousandsOfDevicesNewestFirstWithTheTotal() throws {
        let live = try Self.manyDevices()
        var seen: [String] = []
        var cursor: Int?
        repeat {
            let page = try tokens(live, "limit=1000" + (cursor.map { "&before=\($0)" } ?? ""))
            #expect(page.total == 2500)
            seen += page.tokens
            cursor = page.next
        } while cursor != nil
        #expect(seen == (0..<2500).reversed().map { "t\($0)" }, "every device once, newest first")
        // Oldest first on request, from a cursor.
        #expect(try tokens(live, "after=0&limit=3").tokens == ["t0", "t1", "t2"])
        #expect(try tokens(live, "after=2497").tokens == ["t2497", "t2498", "t2499"])
        // Both cursors: the ids between them, oldest first.
        #expect(try tokens(live, "after=1&before=5").tokens == ["t1", "t2", "t3"])
    }

    @Test func searchesTokensUserKeysModelsOSAndParamsWithTheCountOfMatches() throws {
        let live = try Self.manyDevices()
        let pixel = try tokens(live, "q=PIXEL")
        #expect(pixel.total == 25)
        #expect(pixel.tokens.first == "t2400")
        #expect(try tokens(live, "q=gold&limit=1").total == (0..<2500).filter { $0 % 7 == 0 }.count)
        #expect(try tokens(live, "q=user10%40example.com&app=testIntegrationKey").total == 50)
        #expect(try tokens(live, "q=t2499").tokens == ["t2499"])
        // Filters and search combine; `%` and `_` are plain characters.
        #expect(try tokens(live, "q=android&platform=ios").total == 0)
        #expect(try tokens(live, "q=%25").total == 0)
        #expect(try live.json("GET", "/_mock/devices?q=" + String(repeating: "x", count: 201)).status == 400)
    }

    @Test func pagesEventsNewestFirstAndFiltersByTypeAndMessage() throws {
        let live = try InProcessServer.withSDKApplications()
        for index in 0..<1500 {
            let tag = index % 3 == 0 ? 2 : 1
            #expect(
                try live.request("GET", "/r/?id=h\(String(index % 10 + 1, radix: 16)),d\(index),\(tag)").status == 200)
        }
        let first = try live.json("GET", "/_mock/events?limit=2")
        let events = first.object["events"] as? [[String: Any]] ?? []
        #expect(events.map { $0["deliveryId"] as? String } == ["d1499", "d1498"])
        #expect(first.object["total"] as? Int == 1500)
        let opens = try live.json("GET", "/_mock/events?type=open&messageId=10&limit=1000")
        #expect(opens.object["total"] as? Int == (0..<1500).filter { $0 % 3 == 0 && $0 % 10 == 9 }.count)
        let cursor = try #require(first.object["nextCursor"] as? Int)
        let next = try live.json("GET", "/_mock/events?limit=1&before=\(cursor)").object["events"] as? [[String: Any]]
        #expect(next?.first?["deliveryId"] as? String == "d1497")
    }

    @Test func theJournalShowsTheAnswerAndFiltersByEndpointStatusAndApp() throws {
        let live = try InProcessServer.withSDKApplications { $0.journalLimit = 5000 }
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(try live.register(.ios, "registrationToken=x&mobileAppUuid=nope").status == 404)
        for index in 0..<1200 { _ = try live.request("GET", "/r/?id=h1,d\(index),1") }
        let page = try live.json("GET", "/_mock/requests?limit=1")
        #expect(page.object["total"] as? Int == 1202)
        let newest = try #require((page.object["requests"] as? [[String: Any]])?.first)
        #expect(newest["target"] as? String == "/r/?id=h1,d1199,1")

        let refused = try live.json("GET", "/_mock/requests?status=404&endpoint=registration-ios")
        #expect(refused.object["total"] as? Int == 1)
        let entry = try #require((refused.object["requests"] as? [[String: Any]])?.first)
        let response = try #require(entry["response"] as? [String: Any])
        #expect(response["body"] as? String == "Unknown integration key (mobileAppUuid): nope")
        #expect((response["headers"] as? [[String]])?.contains(["Content-Type", "text/plain; charset=utf-8"]) == true)

        let id = try #require(entry["id"] as? Int)
        let one = try live.json("GET", "/_mock/requests/\(id)")
        #expect(one.status == 200)
        #expect((one.object["response"] as? [String: Any])?["body"] as? String == response["body"] as? String)
        #expect(try live.json("GET", "/_mock/requests/999999").status == 404)
        #expect(try live.json("GET", "/_mock/requests?app=integrationKey").object["total"] as? Int == 1)
    }

    /// A `request` stream event is a summary: what a list row shows, not the headers and bodies.
    @Test func theStreamSendsRequestsAsSummaries() throws {
        let live = try LiveServer.withSDKApplications()
        let reader = try StreamReader(port: live.port, query: "?type=request")
        while live.app.stream.count < 1 { usleep(1000) }
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let events = try reader.read { $0.count >= 1 }
        let data = try #require(
            try JSONSerialization.jsonObject(with: Data(events[0].data.utf8)) as? [String: Any])
        #expect(
            Set(data.keys) == ["appKey", "durationMs", "endpoint", "id", "method", "receivedAt", "status", "target"])
        #expect(data["status"] as? Int == 200)
    }
}
