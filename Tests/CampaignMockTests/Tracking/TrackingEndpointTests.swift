import CampaignMock
import CampaignMockModel
import CampaignMockStorage
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

extension TestServer {
    /// Records an issued message for the device with `token`, as the push composer does.
    func issueMessage(_ messageID: String, delivery: String, token: String) throws {
        _ = try app.store.writeAndWait { transaction in
            let device = try transaction.reader.connection.query(
                "SELECT id, application_id FROM devices WHERE registration_token = ?", [token]
            ).first
            try transaction.insertMessage(
                messageID: messageID, deliveryID: delivery, deviceID: device?["id"].integer,
                applicationID: device?["application_id"].integer)
        }
    }

    func events(_ query: String = "") throws -> [[String: Any]] {
        let page = try json("GET", "/_mock/events" + (query.isEmpty ? "" : "?" + query))
        return page.object["events"] as? [[String: Any]] ?? []
    }
}

@Suite("tracking endpoint, docs/product.md §4", .timeLimit(.minutes(2)))
struct TrackingEndpointTests {
    @Test(arguments: TrackingIDTests.vectors)
    func storesEveryVectorAndAnswers200WithNoBody(_ vector: TrackingIDTests.Vector) throws {
        let live = try InProcessServer(inMemory: true)
        let response = try live.request("GET", "/r/?id=\(vector.id)", headers: ["User-Agent": "AEPCampaignClassic/5.0"])
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        let event = try #require(try live.events().first)
        #expect(event["rawId"] as? String == vector.id)
        #expect(event["tag"] as? Int == vector.tag.tag)
        #expect(event["type"] as? String == vector.tag.rawValue)
        #expect(event["deliveryId"] as? String == vector.delivery)
        #expect(event["messageHex"] as? String == vector.hex)
        #expect(event["messageValue"] as? String == vector.value.map(String.init))
        #expect(event["messageUuid"] as? String == vector.uuid)
        #expect(event["userAgent"] as? String == "AEPCampaignClassic/5.0")
        #expect(event["remoteAddress"] as? String == "127.0.0.1")
    }

    @Test(arguments: [
        ("/r/?id=hxyz,d,1", 400, "message id 'xyz' is neither hex nor a UUID"),
        ("/r/?id=h3039,d,7", 400, "tag must be 1 (received) or 2 (opened), got '7'"),
        ("/r/?id=3039,d,1", 400, "id must start with 'h' (h<messageId>,<deliveryId>,<tag>)"),
        ("/r/", 400, "missing id parameter"),
        ("/r/?id=h1,d,1&id=h2,d,1", 400, "id parameter appears more than once"),
    ])
    func refusesMalformedIDsAndStoresNoEvent(_ target: String, _ status: Int, _ reason: String) throws {
        let live = try InProcessServer(inMemory: true)
        let response = try live.request("GET", target)
        #expect(response.status == status)
        #expect(response.body == reason)
        #expect(try live.events().isEmpty)
        let journaled = try #require(try live.lastJournalEntry())
        #expect(journaled.endpoint == "tracking")
        #expect(journaled.reason == reason)
    }

    @Test func refusesABrokenEscapeSentAsIs() throws {
        let live = try LiveServer(inMemory: true)
        let client = try RawHTTPClient(port: live.port)
        try client.send("GET /r/?id=%zz HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(response.text == "malformed percent-encoding in the query string")
    }

    @Test func answersOtherMethodsWith405() throws {
        let live = try InProcessServer(inMemory: true)
        let response = try live.request("POST", "/r/?id=h3039,d,1", body: "x")
        #expect(response.status == 405)
        #expect(response.headers["allow"] == "GET, HEAD")
    }

    @Test func acceptsPercentEncodedCommas() throws {
        let live = try InProcessServer(inMemory: true)
        #expect(try live.request("GET", "/r/?id=h3039%2Cd%2C2").status == 200)
        #expect(try live.events().first?["type"] as? String == "open")
    }

    @Test func linksHitsToTheIssuedMessageAndDeviceForEveryEncoding() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        try live.issueMessage("-673096100", delivery: "7a3f1", token: "70757368546f6b656e")
        try live.issueMessage("55336", delivery: "7a3f2", token: "70757368546f6b656e")
        try live.issueMessage("6b6499a8-9d43-4bc5-acf0-b6aeb96846f6", delivery: "7a3f3", token: "70757368546f6b656e")
        try live.issueMessage("57904851586134", delivery: "7a3f4", token: "70757368546f6b656e")
        let hits = [
            ("hd7e15e5c,7a3f1,1", "-673096100"),  // iOS / Android ≥ 3.1.4: 32-bit two's complement
            ("hffffffffd7e15e5c,7a3f1,2", "-673096100"),  // Android < 3.1.4: 64-bit
            ("hd828,7a3f2,2", "55336"),
            ("h6B6499A8-9D43-4BC5-ACF0-B6AEB96846F6,7a3f3,1", "6b6499a8-9d43-4bc5-acf0-b6aeb96846f6"),
            ("h34aa061c0c56,7a3f4,1", "57904851586134"),  // full 64-bit
            ("h61c0c56,7a3f4,2", "57904851586134"),  // iOS truncation to the low 32 bits
        ]
        for (id, _) in hits { #expect(try live.request("GET", "/r/?id=\(id)").status == 200) }
        let events = try live.events("after=0")
        #expect(events.count == hits.count)
        for (event, (_, issued)) in zip(events, hits) {
            let link = try #require(event["linked"] as? [String: Any])
            #expect(link["messageId"] as? String == issued)
            #expect(link["registrationToken"] as? String == "70757368546f6b656e")
            #expect(link["integrationKey"] as? String == "integrationKey")
        }
        #expect(try live.events("messageId=-673096100").count == 2)
        #expect(try live.events("messageId=d7e15e5c").count == 1)
        #expect(try live.events("messageId=6b6499a8-9d43-4bc5-acf0-b6aeb96846f6").count == 1)
        #expect(try live.events("token=70757368546f6b656e&type=open").count == 3)
        #expect(try live.events("deliveryId=7a3f4&tag=2").count == 1)
    }

    @Test func unknownMessageIDsAreStoredUnlinkedOr404WhenStrict() throws {
        let lenient = try InProcessServer(inMemory: true)
        #expect(try lenient.request("GET", "/r/?id=h3039,d,1").status == 200)
        #expect(try lenient.events().first?["linked"] == nil)

        let strict = try InProcessServer.withSDKApplications { $0.strictTracking = true }
        let refused = try strict.request("GET", "/r/?id=h3039,d,1")
        #expect(refused.status == 404)
        #expect(refused.body.contains("never issued"))
        #expect(try strict.events().isEmpty)
        try strict.issueMessage("12345", delivery: "d", token: "none")
        #expect(try strict.request("GET", "/r/?id=h3039,d,1").status == 200)
    }

    @Test func filtersEventsByTimeAndPages() throws {
        let live = try InProcessServer(inMemory: true)
        for tag in [1, 2, 1] { _ = try live.request("GET", "/r/?id=h1,d,\(tag)") }
        #expect(try live.events("since=2000-01-01T00:00:00Z").count == 3)
        #expect(try live.events("since=2999-01-01T00:00:00.000Z").isEmpty)
        #expect(try live.events("since=0").count == 3)
        let first = try live.json("GET", "/_mock/events?limit=2")
        let cursor = try #require(first.object["nextCursor"] as? Int)
        #expect(try live.events("after=\(cursor)").count == 1)
        #expect(try live.json("GET", "/_mock/events?since=yesterday").status == 400)
        #expect(try live.json("GET", "/_mock/events?tag=3").status == 400)
    }

    @Test func answersTheHealthPagesAsTheRealServer() throws {
        let live = try InProcessServer(inMemory: true)
        let ping = try live.request("GET", "/nl/jsp/ping.jsp")
        #expect(ping.status == 200)
        let lines = ping.body.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[0] == "OK" && lines[2].isEmpty)
        #expect(lines[1].range(of: #"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil)

        let redirect = try live.request("GET", "/r/test")
        #expect(redirect.status == 200)
        #expect(redirect.body.hasPrefix("<redir status='OK' date='"))
        #expect(redirect.body.contains("host='127.0.0.1'"))
        #expect(try live.lastJournalEntry()?.endpoint == "health")
    }
}

@Suite("SDK endpoints under concurrency", .timeLimit(.minutes(3)))
struct SDKConcurrencyTests {
    @Test func sixtyFourConnectionsTimesFiveHundredHitsStoreExactly32000Events() throws {
        let live = try LiveServer()
        let port = live.port
        let failures = LockedCounter()
        runConcurrently(64) { connection in
            do {
                let client = try RawHTTPClient(port: port)
                for hit in 0..<500 {
                    let id = String(connection * 1000 + hit, radix: 16)
                    try client.send("GET /r/?id=h\(id),c\(connection),\(hit % 2 + 1) HTTP/1.1\r\nHost: t\r\n\r\n")
                    if try client.readResponse().status != 200 { failures.increment() }
                }
            } catch {
                failures.increment()
            }
        }
        #expect(failures.value == 0)
        let (count, distinct) = try live.app.store.read { reader in
            (
                try reader.eventCount(),
                try reader.connection.scalar("SELECT count(DISTINCT raw_id) FROM tracking_events").integer
            )
        }
        #expect(count == 32_000)
        #expect(distinct == 32_000)
    }

    @Test func theSameTokenFromEightConnectionsIsOneDeviceWithEightHistoryRows() throws {
        let live = try LiveServer.withSDKApplications()
        let port = live.port
        let statuses = LockedCounter()
        let clients = try (0..<8).map { _ in try RawHTTPClient(port: port) }
        let requests = (0..<8).map { index in
            let body = SDKBodies.android.replacingOccurrences(of: "userKey=testUser", with: "userKey=user\(index)")
            return "POST /nms/mobile/1/registerAndroid.jssp HTTP/1.1\r\nHost: m\r\n"
                + "Content-Type: \(SDKBodies.contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        }
        // Connected first so the eight requests race; each thread uses only its own client.
        nonisolated(unsafe) let connected = clients
        runConcurrently(8) { index in
            try? connected[index].send(requests[index])
            if (try? connected[index].readResponse().status) == 200 { statuses.increment() }
        }
        #expect(statuses.value == 8)
        let device = try #require(try live.device("testToken"))
        #expect(device.registrationCount == 8)
        #expect(device.history?.count == 8)
        #expect(device.history?.first?.changes == ["new"])
        #expect(Set(device.history?.map(\.userKey) ?? []).count == 8)
        #expect(try live.storedRows()[0] == 1)
    }
}
