import CampaignMock
import CampaignMockHTTP
import CampaignMockMobile
import CampaignMockModel
import CampaignMockRuntime
import CampaignMockStorage
import CampaignMockTesting
import Testing

/// The tracking route reads a hit once for the fault rules and the answer: its `id` parsed once, its
/// issued message looked up at most once on a reader (then once more in the write that links it).
@Suite("tracking endpoint's shared read", .timeLimit(.minutes(3)))
struct TrackingReadTests {
    @Test func theFaultRulesAndTheStrictCheckShareOneLookupOfTheMessage() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        try live.issueMessage("55336", delivery: "d", token: "70757368546f6b656e")
        let endpoint = TrackingEndpoint(store: live.app.store, strict: true)
        let request = HTTPRequest(method: .get, target: "/r/?id=hd828,d,2")
        let hit = endpoint.read(request)
        #expect(endpoint.identify(hit) == ("integrationKey", "70757368546f6b656e"))
        // The message goes; the strict check still uses what the fault rules were given, not a second read.
        #expect(try live.request("POST", "/_mock/reset").status == 200)
        #expect(try endpoint.decide(request, hit).response.status == .ok)
        // A new read of the same hit finds it gone.
        #expect(throws: HTTPError.self) { try endpoint.decide(request, endpoint.read(request)) }
    }

    @Test func aMalformedIDIsRefusedByTheAnswerAndUnknownToTheRules() throws {
        let live = try InProcessServer(inMemory: true)
        let endpoint = TrackingEndpoint(store: live.app.store, strict: false)
        let request = HTTPRequest(method: .get, target: "/r/?id=nonsense")
        let hit = endpoint.read(request)
        #expect(endpoint.identify(hit) == (nil, nil))
        #expect(throws: HTTPError.self) { try endpoint.decide(request, hit) }
    }
}
