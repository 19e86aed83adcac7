import CampaignMock
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Clients that try to knock the server over. None of these assertions is about time: each waits for
/// a condition with a generous deadline.
@Suite("hostile clients", .timeLimit(.minutes(2)))
struct HostileClientTests {
    /// Polls `condition` until it holds or 20 s pass.
    private func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    private func trackingHit(_ port: UInt16, _ n: Int) throws -> Int {
        let client = try RawHTTPClient(port: port)
        try client.send("GET /r/?id=h3039,normal-\(n),1 HTTP/1.1\r\nHost: t\r\n\r\n")
        return try client.readResponse().status
    }

    @Test func fiveHundredStalledHeadsDoNotStopANormalClient() throws {
        let live = try LiveServer(inMemory: true)
        var stalled: [RawHTTPClient] = []
        for _ in 0..<500 {
            let client = try RawHTTPClient(port: live.port)
            try client.send("GET /r/?id=h3039,slow,1 HTTP/1.1\r\nHost: t\r\nUser-Agent: sl")
            stalled.append(client)
        }
        #expect(eventually { live.server.openConnectionsForTesting >= 500 })
        for n in 0..<200 {
            #expect(try trackingHit(live.port, n) == 200)
        }
        // Every normal hit is stored; the stalled ones sent no complete request.
        #expect(try live.events("limit=1000").count == 200)
        #expect(live.server.openConnectionsForTesting >= 500)
        stalled.removeAll()
        // Only the keep-alive connection of the URLSession that read the events may stay.
        #expect(eventually { live.server.openConnectionsForTesting <= 1 })
    }

    @Test func connectionsClosedWithoutAByteLeaveNothingBehind() throws {
        let live = try LiveServer(inMemory: true)
        for _ in 0..<1000 {
            _ = try RawHTTPClient(port: live.port)
        }
        #expect(eventually { live.server.openConnectionsForTesting == 0 })
        #expect(try trackingHit(live.port, 1) == 200)
        #expect(try live.request("GET", "/_mock/requests").status == 200)
    }

    @Test func aHundredMegabyteBodyIsRefusedEarlyWithoutBeingBuffered() throws {
        let live = try LiveServer(inMemory: true)
        let before = ResidentMemory.megabytes()
        let client = try RawHTTPClient(port: live.port)
        let size = 100 * 1024 * 1024
        try client.send(
            "POST /nms/mobile/1/registerIOS.jssp HTTP/1.1\r\nHost: t\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(size)\r\n\r\n")
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1024 * 1024)
        try client.send(chunk)
        // The answer is there after the first megabyte, before the body.
        #expect(try client.readResponse().status == 413)
        // The rest is drained and thrown away (so the client sees the answer, not a reset), never kept.
        var sent = chunk.count
        while sent < size, (try? client.send(chunk)) != nil { sent += chunk.count }
        if let before, let after = ResidentMemory.megabytes() { #expect(after - before < 50) }
        #expect(try trackingHit(live.port, 1) == 200)
        #expect(try live.storedRows()[0] == 0)
    }

    @Test func tenThousandHeadersAre431() throws {
        let live = try LiveServer(inMemory: true)
        let client = try RawHTTPClient(port: live.port)
        var head = "GET /r/?id=h3039,d,1 HTTP/1.1\r\nHost: t\r\n"
        for n in 0..<10_000 { head += "X-Header-\(n): v\r\n" }
        try? client.send(head + "\r\n")
        #expect(try client.readResponse().status == 431)
        #expect(try live.events("").isEmpty)
        #expect(try trackingHit(live.port, 1) == 200)
    }

    @Test func pipelinedGarbageAfterARegistrationKeepsTheRegistration() throws {
        let live = try LiveServer.withSDKApplications()
        let client = try RawHTTPClient(port: live.port)
        let body = SDKBodies.iOS
        try client.send(
            "POST /nms/mobile/1/registerIOS.jssp HTTP/1.1\r\nHost: t\r\nContent-Type: \(SDKBodies.contentType)\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)\u{0}\u{1}GARBAGE \r\n\r\n")
        #expect(try client.readResponse().status == 200)
        #expect(try client.readResponse().status == 400)
        #expect(try live.storedRows()[0] == 1)
    }
}
