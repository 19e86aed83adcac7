import CampaignMock
import CampaignMockModel
import CampaignMockStorage
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

private func get(_ path: String) -> String {
    "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n"
}

/// The transport's promises, checked through the same composition root the CLI runs: every request
/// to a Campaign path is journaled (a SQLite write before the answer), so these also show that
/// concurrent load loses and duplicates nothing.
@Suite("campaign-mock server under load and abuse", .timeLimit(.minutes(3)))
struct ServerLoadTests {
    @Test func answersThousandRequestsOnOneKeepAliveConnection() throws {
        let live = try LiveServer(inMemory: true)
        let client = try RawHTTPClient(port: live.port)
        for index in 0..<1000 {
            let path = index.isMultiple(of: 2) ? "/_mock/health" : "/campaign/\(index)"
            try client.send(get(path))
            let response = try client.readResponse()
            #expect(response.status == (index.isMultiple(of: 2) ? 200 : 404))
        }
        #expect(try live.app.store.read { $0.journalCount() } == 500)
    }

    @Test func answersTwoHundredConcurrentConnectionsAndJournalsEachRequestOnce() throws {
        let live = try LiveServer()
        let port = live.port
        let wrong = LockedCounter()
        runConcurrently(200) { connection in
            do {
                let client = try RawHTTPClient(port: port)
                for request in 0..<50 {
                    try client.send(get("/c/\(connection)/\(request)"))
                    let response = try client.readResponse()
                    if response.status != 404 || !response.text.hasSuffix("/c/\(connection)/\(request)") {
                        wrong.increment()
                    }
                }
            } catch {
                wrong.increment()
            }
        }
        #expect(wrong.value == 0)
        let targets = try live.app.store.journalTargets()
        let (total, distinct) = (targets.count, Set(targets).count)
        #expect(total == 10_000)
        #expect(distinct == 10_000)
    }

    @Test func answersPipelinedRequestsInOrder() throws {
        let live = try LiveServer(inMemory: true)
        let client = try RawHTTPClient(port: live.port)
        let paths = (0..<20).map { $0.isMultiple(of: 3) ? "/_mock/health" : "/p/\($0)" }
        try client.send(paths.map(get).joined())
        for path in paths {
            let response = try client.readResponse()
            if path == "/_mock/health" {
                #expect(response.status == 200)
            } else {
                #expect(response.text == "no Campaign endpoint at \(path)")
            }
        }
        let journal = try live.app.store.read { try $0.journalPage(after: 0, limit: 100) }
        #expect(journal.requests.map(\.target) == paths.filter { $0 != "/_mock/health" })
    }

    @Test func aStalledClientDoesNotDelayAnother() throws {
        let live = try LiveServer(inMemory: true)
        let stalled = try (0..<50).map { _ in try RawHTTPClient(port: live.port) }
        for (index, client) in stalled.enumerated() {
            try client.send(
                index.isMultiple(of: 2)
                    ? "GET / HTTP/1.1\r\nHo" : "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 9\r\n\r\nab")
        }
        let started = Date()
        let client = try RawHTTPClient(port: live.port)
        for _ in 0..<100 {
            try client.send(get("/_mock/health"))
            #expect(try client.readResponse().status == 200)
        }
        // The header and body timeouts are 10 s and 30 s: done long before, nobody waited for the stalled.
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("after a malformed request the server still answers a good one", arguments: MalformedRequest.examples)
    func staysUpAfterMalformedInput(_ example: MalformedRequest) throws {
        let live = try LiveServer(inMemory: true)
        let bad = try RawHTTPClient(port: live.port)
        try bad.send(example.text)
        let response = try bad.readResponse()
        #expect(response.status == example.status)
        #expect(bad.isClosedByServer())

        let good = try RawHTTPClient(port: live.port)
        try good.send(get("/_mock/ready"))
        #expect(try good.readResponse().status == 200)
        #expect(try live.app.store.read { $0.journalCount() } == 0, "refused framing is not journaled")
    }
}
