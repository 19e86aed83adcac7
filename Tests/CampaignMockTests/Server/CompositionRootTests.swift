import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockModel
@testable import CampaignMockStorage

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("campaign-mock server through its composition root", .timeLimit(.minutes(2)))
struct CompositionRootTests {
    @Test func reportsHealthAndReadiness() throws {
        let live = try InProcessServer()
        let health = try live.json("GET", "/_mock/health")
        #expect(health.status == 200)
        #expect(health.object["status"] as? String == "ok")
        #expect(health.object["version"] as? String == CampaignMockVersion.current)
        #expect(health.object["uptimeSeconds"] is Double)
        let ready = try live.json("GET", "/_mock/ready")
        #expect(ready.status == 200)
        #expect(ready.object["ready"] as? Bool == true)
    }

    @Test func journalsCampaignRequestsWithTheirReason() throws {
        let live = try InProcessServer()
        let response = try live.request(
            "POST", "/nms/mobile/1/unknown.jssp", body: "a=1",
            headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(response.status == 404)
        #expect(response.body == "no Campaign endpoint at /nms/mobile/1/unknown.jssp")
        _ = try live.request("GET", "/_mock/health")

        let page = try live.json("GET", "/_mock/requests")
        let requests = try #require(page.object["requests"] as? [[String: Any]])
        #expect(requests.count == 1, "admin calls are not journaled")
        let entry = try #require(requests.first)
        #expect(entry["method"] as? String == "POST")
        #expect(entry["target"] as? String == "/nms/mobile/1/unknown.jssp")
        #expect(entry["status"] as? Int == 404)
        #expect(entry["body"] as? String == "a=1")
        #expect(entry["endpoint"] as? String == "unknown")
        #expect((entry["reason"] as? String)?.contains("no Campaign endpoint") == true)
        #expect(page.object["dropped"] as? Int == 0)
    }

    @Test func reportsDroppedJournalEntries() throws {
        let live = try InProcessServer { $0.journalLimit = 3 }
        for index in 0..<5 { _ = try live.request("GET", "/x/\(index)") }
        let page = try live.json("GET", "/_mock/requests")
        let targets = (page.object["requests"] as? [[String: Any]])?.compactMap { $0["target"] as? String }
        #expect(targets == ["/x/4", "/x/3", "/x/2"])
        #expect(page.object["total"] as? Int == 3)
        #expect(page.object["dropped"] as? Int == 2)

        let cleared = try live.json("DELETE", "/_mock/requests")
        #expect(cleared.object["deleted"] as? Int == 3)
        let empty = try live.json("GET", "/_mock/requests")
        #expect((empty.object["requests"] as? [Any])?.isEmpty == true)
        #expect(empty.object["dropped"] as? Int == 0)
    }

    @Test func pagesTheJournalAndRejectsBadParameters() throws {
        let live = try InProcessServer(inMemory: true)
        for index in 0..<3 { _ = try live.request("GET", "/p/\(index)") }
        let first = try live.json("GET", "/_mock/requests?limit=2")
        let cursor = try #require(first.object["nextCursor"] as? Int)
        let rest = try live.json("GET", "/_mock/requests?after=\(cursor)")
        #expect((rest.object["requests"] as? [[String: Any]])?.compactMap { $0["target"] as? String } == ["/p/2"])

        let bad = try live.json("GET", "/_mock/requests?limit=0")
        #expect(bad.status == 400)
        #expect((bad.object["error"] as? String)?.contains("'limit'") == true)
    }

    @Test func answersUnknownAdminPathsAndMethodsAsJSON() throws {
        let live = try InProcessServer(inMemory: true)
        let missing = try live.json("GET", "/_mock/nothing")
        #expect(missing.status == 404)
        #expect(missing.object["error"] as? String == "no admin endpoint at /_mock/nothing")

        let wrong = try live.request("PUT", "/_mock/health")
        #expect(wrong.status == 405)
        #expect(wrong.headers["allow"] == "GET, HEAD")
        #expect(wrong.body.contains("\"error\""))
    }

    @Test func keepsTheJournalAcrossRestarts() throws {
        let directory = TemporaryDirectory()
        do {
            let live = try InProcessServer(directory: directory)
            _ = try live.request("GET", "/before-restart")
        }
        let again = try InProcessServer(directory: directory)
        let page = try again.json("GET", "/_mock/requests")
        #expect((page.object["requests"] as? [[String: Any]])?.first?["target"] as? String == "/before-restart")
    }

    @Test func refusesASecondServerOnTheSameDataDirectory() throws {
        let directory = TemporaryDirectory()
        let first = try InProcessServer(directory: directory)
        #expect(throws: StoreError.self) { try InProcessServer(directory: directory) }
        _ = first
    }

    @Test func shutdownClosesTheListenerAndTheStore() throws {
        let live = try LiveServer(inMemory: true)
        let port = live.port
        _ = try live.request("GET", "/_mock/ready")
        live.server.shutdown()
        #expect(throws: (any Error).self) { try RawHTTPClient(port: port) }
        #expect(throws: StoreError.closed) { try live.app.store.writeAndWait { _ in } }
    }
}
