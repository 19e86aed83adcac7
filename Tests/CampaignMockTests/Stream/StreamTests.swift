import CampaignMock
import CampaignMockModel
import CampaignMockRuntime
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Synchronization
import Testing

/// A `GET /_mock/stream` reader over a raw socket: decodes the chunked body and the events in it.
final class StreamReader: @unchecked Sendable {
    struct Event: Equatable, Sendable {
        var id: UInt64?
        var type: String
        var data: String
    }

    let client: RawHTTPClient
    let head: RawResponse
    private var raw: [UInt8] = []
    private var text = ""
    private(set) var ended = false

    init(port: UInt16, query: String = "", headers: [String: String] = [:]) throws {
        client = try RawHTTPClient(port: port, timeoutSeconds: 10)
        let extra = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
        try client.send("GET /_mock/stream\(query) HTTP/1.1\r\nHost: localhost\r\n\(extra)\r\n")
        head = try client.readResponse(head: true)
    }

    /// Reads until `done` says enough was seen (or the stream ends); returns the events read.
    func read(until done: ([Event]) -> Bool) throws -> [Event] {
        var events: [Event] = []
        while !done(events) {
            guard let bytes = try client.readSome() else {
                ended = true
                break
            }
            raw += bytes
            events += decode()
        }
        return events
    }

    /// Takes whole chunks out of `raw`, then whole events out of the text.
    private func decode() -> [Event] {
        while let lineEnd = raw.firstRange(of: [13, 10]) {
            guard let size = Int(String(decoding: raw[..<lineEnd.lowerBound], as: UTF8.self), radix: 16) else { break }
            let start = lineEnd.upperBound
            guard raw.count >= start + size + 2 else { break }
            text += String(decoding: raw[start..<(start + size)], as: UTF8.self)
            raw.removeFirst(start + size + 2)
            if size == 0 { ended = true }
        }
        var events: [Event] = []
        while let end = text.range(of: "\n\n") {
            let block = text[..<end.lowerBound]
            text.removeSubrange(..<end.upperBound)
            var event = Event(id: nil, type: "message", data: "")
            var isEvent = false
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { event.id = UInt64(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { event.type = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") {
                    event.data = String(line.dropFirst(6))
                    isEvent = true
                }
            }
            // Comments (heartbeats) and the retry advice are not events.
            if isEvent { events.append(event) }
        }
        return events
    }
}

@Suite("event stream", .timeLimit(.minutes(2)))
struct StreamTests {
    private func hit(_ live: LiveServer, _ index: Int, tag: Int = 1) throws {
        #expect(try live.request("GET", "/r/?id=h\(String(index, radix: 16)),d\(index),\(tag)").status == 200)
    }

    @Test func sendsEachChangeAsAnEventOfItsAdminShape() throws {
        let live = try LiveServer.withSDKApplications()
        // Every type but `check` (the hit's message was never composed: ChecksLiveTests has those events).
        let reader = try StreamReader(port: live.port, query: "?type=registration,device,receive,open,request")
        #expect(reader.head.status == 200)
        #expect(reader.head.header("Content-Type") == "text/event-stream; charset=utf-8")
        #expect(reader.head.header("Transfer-Encoding") == "chunked")
        while live.app.stream.count == 0 { usleep(1000) }
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        try hit(live, 12345, tag: 2)
        let events = try reader.read { events in events.map(\.type).contains("open") }
        #expect(Set(events.map(\.type)) == ["registration", "device", "request", "open"])
        let ids = events.compactMap(\.id)
        #expect(ids == ids.sorted() && Set(ids).count == ids.count)
        let registration = try #require(events.first { $0.type == "registration" })
        let item = try JSONSerialization.jsonObject(with: Data(registration.data.utf8)) as? [String: Any]
        #expect(item?["registrationToken"] as? String == "70757368546f6b656e")
        // The device comes as the device list shows it, byte for byte: the console takes it as it is.
        let device = try #require(events.first { $0.type == "device" })
        let listed = try live.request("GET", "/_mock/devices?token=70757368546f6b656e").body
        let row = try #require(
            (try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])?["devices"] as? [Any]
        ).first
        let streamed = try JSONSerialization.jsonObject(with: Data(device.data.utf8))
        #expect(
            NSDictionary(dictionary: streamed as? [String: Any] ?? [:])
                == NSDictionary(dictionary: row as? [String: Any] ?? ["missing": true]))
        let open = try #require(events.first { $0.type == "open" })
        #expect((try JSONSerialization.jsonObject(with: Data(open.data.utf8)) as? [String: Any])?["tag"] as? Int == 2)
    }

    @Test func filtersByTypeAndFacts() throws {
        let live = try LiveServer.withSDKApplications()
        let reader = try StreamReader(port: live.port, query: "?type=registration&platform=android")
        while live.app.stream.count == 0 { usleep(1000) }
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        let events = try reader.read { !$0.isEmpty }
        #expect(events.map(\.type) == ["registration"])
        #expect(events[0].data.contains(#""platform":"android""#))
        let refused = try live.request("GET", "/_mock/stream?type=registrations")
        #expect(refused.status == 400)
        #expect(refused.body.contains("not one of registration, device, receive, open"))
    }

    /// 1,000 hits and 200 registrations while the reader goes away and comes back with Last-Event-ID five
    /// times: every event arrives once, in order, with no gap.
    @Test func resumesWithoutGapOrRepeat() throws {
        let live = try LiveServer.withSDKApplications()
        let first = try StreamReader(port: live.port)
        while live.app.stream.count == 0 { usleep(1000) }
        let port = live.port
        let sending = Thread {
            guard let client = try? RawHTTPClient(port: port) else { return }
            for index in 1...1000 {
                try? client.send("GET /r/?id=h\(String(index, radix: 16)),d\(index),1 HTTP/1.1\r\nHost: t\r\n\r\n")
                _ = try? client.readResponse()
                if index % 5 == 0 {
                    let body = "registrationToken=t\(index)&mobileAppUuid=integrationKey"
                    try? client.send(
                        "POST /nms/mobile/1/registerIOS.jssp HTTP/1.1\r\nHost: m\r\n"
                            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                            + body)
                    _ = try? client.readResponse()
                }
            }
        }
        sending.start()
        var received: [StreamReader.Event] = []
        var reader = first
        // Hits and their journal rows; registrations, their devices and their journal rows. (The hits'
        // messages were never composed: `check` events about them come in between, and are not counted.)
        let expected = 1000 + 1000 + 200 + 200 + 200
        func counted(_ events: [StreamReader.Event]) -> Int { events.count { $0.type != "check" } }
        for round in 0..<6 {
            let target = round < 5 ? (round + 1) * 300 : expected
            received += try reader.read { events in counted(received) + counted(events) >= target }
            guard round < 5 else { break }
            let last = try #require(received.last?.id)
            reader = try StreamReader(port: live.port, headers: ["Last-Event-ID": String(last)])
        }
        let ids = received.compactMap(\.id)
        #expect(counted(received) == expected)
        #expect(ids == Array(1...UInt64(received.count)), "events were lost, repeated or reordered")
        #expect(!received.contains { $0.type == "gap" })
        let hits = received.filter { $0.type == "receive" }.map { event in
            (try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])?["deliveryId"] as? String
        }
        #expect(hits == (1...1000).map { "d\($0)" })
    }

    @Test func aReaderThatStopsReadingIsCutAndOthersAreNot() throws {
        let live = try LiveServer.withSDKApplications { $0.streamBufferLimit = 256 * 1024 }
        let stalled = try RawHTTPClient(port: live.port)
        try stalled.send("GET /_mock/stream?type=request HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let healthy = try StreamReader(port: live.port, query: "?type=request")
        while live.app.stream.count < 2 { usleep(1000) }
        // The healthy reader reads all along, on its own thread.
        let read = Mutex<[StreamReader.Event]>([])
        let reading = Thread {
            _ = try? healthy.read { events in
                read.withLock { $0 = events }
                return events.count >= 5000 || events.contains { $0.type == "overflow" }
            }
        }
        reading.start()
        // A request event is a summary (no headers or bodies): a long target makes it big.
        let path = "/unknown/" + String(repeating: "x", count: 7000)
        var sent = 0
        while live.app.stream.count == 2 && sent < 5000 {
            _ = try live.request("GET", path)
            sent += 1
            // The healthy reader is let catch up before the next request, so that only the stalled one
            // can fall behind by the buffer's limit, however fast the server answers and however slowly
            // this test's reader decodes.
            let deadline = Date().addingTimeInterval(30)
            while read.withLock({ $0.count }) < sent && Date() < deadline { usleep(200) }
        }
        // The hub writes on its own queue; give it time to catch up with what was sent.
        for _ in 0..<2000 where live.app.stream.count == 2 { usleep(10_000) }
        #expect(live.app.stream.count == 1, "the stalled reader's stream was not cut after \(sent) requests")
        // The stalled reader, reading at last, finds the overflow event at the end of what it was sent.
        let everything = String(decoding: try stalled.readUntilClosed(), as: UTF8.self)
        #expect(everything.contains("event: overflow"))
        for _ in 0..<1000 where read.withLock({ $0.count }) < sent { usleep(10_000) }
        let events = read.withLock { $0 }
        #expect(events.count == sent)
        #expect(!events.contains { $0.type == "overflow" })
    }

    @Test func shutdownEndsOpenStreams() throws {
        let live = try LiveServer.withSDKApplications()
        let readers = try (0..<3).map { _ in try StreamReader(port: live.port) }
        while live.app.stream.count < 3 { usleep(1000) }
        live.server.shutdown()
        for reader in readers {
            let events = try reader.read { _ in false }
            #expect(events.last?.type == "shutdown")
            #expect(reader.ended)
        }
    }

    @Test func aResumeFromBeforeTheKeptEventsStartsWithAGap() throws {
        let live = try LiveServer.withSDKApplications()
        let first = try StreamReader(port: live.port)
        while live.app.stream.count == 0 { usleep(1000) }
        try hit(live, 1)
        _ = try first.read { $0.count >= 2 }
        let reader = try StreamReader(port: live.port, query: "?since=0")
        let events = try reader.read { $0.count >= 1 }
        #expect(events.first?.type == "gap" || events.first?.id == 1)
    }

    /// While any stream is open every kind is kept, so a stream that asks for more later resumes
    /// without a gap.
    @Test func aStreamOfOneTypeKeepsEveryKindForALaterResume() throws {
        let live = try LiveServer.withSDKApplications()
        let hits = try StreamReader(port: live.port, query: "?type=receive")
        while live.app.stream.count == 0 { usleep(1000) }
        try hit(live, 1)
        let first = try hits.read { !$0.isEmpty }
        #expect(first.map(\.type) == ["receive"])
        let all = try StreamReader(port: live.port, query: "?since=0&type=receive,request")
        let events = try all.read { $0.count >= 2 }
        #expect(events.map(\.type) == ["receive", "request"])
        #expect(events.map(\.id) == [1, 2])
    }

    /// A state import is announced as one `reset` (consoles reload), not as the rows it wrote.
    @Test func anImportIsAnnouncedAsAReset() throws {
        let live = try LiveServer.withSDKApplications()
        try hit(live, 1)
        let exported = try live.request("GET", "/_mock/state")
        #expect(exported.status == 200)
        let reader = try StreamReader(port: live.port, query: "?type=reset,receive,request")
        while live.app.stream.count == 0 { usleep(1000) }
        let imported = try live.request(
            "PUT", "/_mock/state", body: exported.body, headers: ["Content-Type": "application/json"])
        #expect(imported.status == 200)
        try hit(live, 2)
        let events = try reader.read { $0.contains { $0.type == "request" && $0.data.contains("d2") } }
        #expect(events.map(\.type) == ["reset", "receive", "request"])
        #expect(events.first?.data.contains(#""imported":{"#) == true)
    }

    @Test func withAnAdminTokenTheStreamTakesItAsAQueryParameter() throws {
        let live = try LiveServer.withSDKApplications { $0.adminToken = "secret" }
        let refused = try live.request("GET", "/_mock/stream")
        #expect(refused.status == 401)
        let reader = try StreamReader(port: live.port, query: "?access_token=secret")
        #expect(reader.head.status == 200)
        // Only the stream takes it that way.
        #expect(try live.request("GET", "/_mock/devices?access_token=secret").status == 401)
    }
}
