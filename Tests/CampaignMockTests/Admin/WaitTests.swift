import CampaignMock
import CampaignMockModel
import CampaignMockRuntime
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

/// Sends a GET on a raw socket from another thread and hands back the response and how long it took.
final class PendingRequest: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Result<RawResponse, any Error>?
    private(set) var seconds = 0.0

    init(port: UInt16, target: String, headers: String = "") {
        let started = Date()
        Thread { [self] in
            do {
                let client = try RawHTTPClient(port: port, timeoutSeconds: 30)
                try client.send("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\(headers)\r\n")
                outcome = .success(try client.readResponse())
            } catch {
                outcome = .failure(error)
            }
            seconds = Date().timeIntervalSince(started)
            done.signal()
        }.start()
    }

    /// Waits for the answer, at most `timeout` seconds.
    func response(timeout: Double = 20) throws -> RawResponse {
        guard done.wait(timeout: .now() + timeout) == .success, let outcome else {
            throw RawClientError("no answer within \(timeout) s")
        }
        return try outcome.get()
    }

    var hasAnswered: Bool { done.wait(timeout: .now()) == .success ? (done.signal(), true).1 : false }
}

extension RawResponse {
    var object: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
}

@Suite("GET /_mock/wait", .timeLimit(.minutes(2)))
struct WaitTests {
    @Test func aWaiterStartedBeforeTheRegistrationIsReleasedByIt() throws {
        let live = try LiveServer.withSDKApplications()
        let waiter = PendingRequest(
            port: live.port, target: "/_mock/wait?for=registration&timeout=10s&app=integrationKey")
        while live.app.waits.count == 0 { usleep(1000) }
        let registered = Date()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let response = try waiter.response()
        let latency = Date().timeIntervalSince(registered)
        #expect(response.status == 200)
        #expect(response.object["count"] as? Int == 1)
        let item = try #require((response.object["items"] as? [[String: Any]])?.first)
        #expect(item["registrationToken"] as? String == "70757368546f6b656e")
        #expect(item["changes"] as? [String] == ["new"])
        // A generous bound: the typical figure is a few milliseconds (see docs/performance.md).
        #expect(latency < 1)
    }

    @Test func timesOutWith408AndWhatWasSeen() throws {
        let live = try LiveServer.withSDKApplications()
        let waiter = PendingRequest(port: live.port, target: "/_mock/wait?for=registration&count=2&timeout=300ms")
        while live.app.waits.count == 0 { usleep(1000) }
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let response = try waiter.response()
        #expect(response.status == 408)
        #expect(response.object["count"] as? Int == 1)
        #expect(response.object["wanted"] as? Int == 2)
        #expect((response.object["error"] as? String)?.hasPrefix("timed out after 300 ms: saw 1 of 2") == true)
        #expect(waiter.seconds >= 0.3)
    }

    @Test func countsFromNowByDefaultAndFromTheStartWithSinceZero() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let fromNow = try live.request("GET", "/_mock/wait?for=registration&timeout=100ms")
        #expect(fromNow.status == 408)
        let everything = try live.request("GET", "/_mock/wait?for=registration&since=0&timeout=100ms")
        #expect(everything.status == 200)
        let sinceTime = try live.request("GET", "/_mock/wait?for=registration&since=2000-01-01T00:00:00Z&timeout=100ms")
        #expect(sinceTime.status == 200)
    }

    /// A wait called after its event says so: the 408 names the earlier matching items and `since=0`.
    @Test func aTimeoutNamesWhatArrivedBeforeTheWaitAndHowToCountIt() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let late = try live.json("GET", "/_mock/wait?for=registration&app=integrationKey&timeout=100ms")
        #expect(late.status == 408)
        let earlier = try #require(late.object["earlier"] as? [String: Any])
        #expect(earlier["count"] as? Int == 1)
        #expect(earlier["include"] as? String == "since=0")
        let newest = try #require(earlier["newest"] as? [String: Any])
        #expect(newest["registrationToken"] as? String == "70757368546f6b656e")
        let error = try #require(late.object["error"] as? String)
        #expect(error.contains("1 matching registration arrived before it"))
        #expect(error.contains("token 70757368546f6b656e") && error.contains("add since=0"))
        #expect(error.contains("at \(newest["receivedAt"] as? String ?? "?")"))
        let counted = try live.json("GET", "/_mock/wait?for=registration&app=integrationKey&since=0&timeout=100ms")
        #expect(counted.status == 200)
        #expect(counted.object["earlier"] == nil)

        // Only what matches the filters is named, and a wait with since names nothing before it.
        let otherApp = try live.json("GET", "/_mock/wait?for=registration&app=someOtherKey&timeout=100ms")
        #expect(otherApp.status == 408 && otherApp.object["earlier"] == nil)
        let fromLater = try live.json("GET", "/_mock/wait?for=registration&since=2999-01-01T00:00:00Z&timeout=100ms")
        #expect(fromLater.status == 408 && fromLater.object["earlier"] == nil)

        #expect(try live.request("GET", "/r/?id=h3039,d,1").status == 200)
        #expect(try live.request("GET", "/r/?id=h3039,d,2").status == 200)
        let opened = try live.json("GET", "/_mock/wait?for=open&timeout=100ms")
        #expect(opened.status == 408)
        #expect((opened.object["earlier"] as? [String: Any])?["count"] as? Int == 1)
        let requests = try live.json("GET", "/_mock/wait?for=request&endpoint=tracking&timeout=100ms")
        #expect(requests.status == 408)
        #expect((requests.object["earlier"] as? [String: Any])?["count"] as? Int == 2)
    }

    /// A timeout with an `app` no application has says so and names the keys; once it exists, it does not.
    @Test func aTimeoutNamesAnAppKeyNoApplicationHas() throws {
        let live = try InProcessServer.withSDKApplications()
        let unknown = "no application has the key 'nope' (keys: integrationKey, pausedKey, testIntegrationKey)"
        for kind in ["registration", "request"] {
            let answer = try live.json("GET", "/_mock/wait?for=\(kind)&app=nope&timeout=100ms")
            #expect(answer.status == 408)
            #expect((answer.object["error"] as? String)?.hasSuffix("; " + unknown) == true, "\(answer.object)")
        }
        let known = try live.json("GET", "/_mock/wait?for=registration&app=integrationKey&timeout=100ms")
        #expect(known.status == 408)
        #expect((known.object["error"] as? String)?.contains("no application") == false)

        let added = try live.json("POST", "/_mock/apps", body: #"{"platform":"ios","integrationKey":"nope"}"#)
        #expect(added.status == 201)
        let afterwards = try live.json("GET", "/_mock/wait?for=registration&app=nope&timeout=100ms")
        #expect(afterwards.status == 408)
        #expect((afterwards.object["error"] as? String)?.contains("no application") == false)
    }

    @Test func aHundredConcurrentWaitersAreAllReleased() throws {
        let live = try LiveServer.withSDKApplications()
        let waiters = (0..<100).map { index in
            PendingRequest(
                port: live.port,
                target: index.isMultiple(of: 2)
                    ? "/_mock/wait?for=open&timeout=20s&messageId=d828" : "/_mock/wait?for=request&timeout=20s&count=2")
        }
        while live.app.waits.count < 100 { usleep(1000) }
        #expect(try live.request("GET", "/r/?id=h3039,d,1").status == 200)
        #expect(try live.request("GET", "/r/?id=hd828,deliveryId,2").status == 200)
        for waiter in waiters {
            #expect(try waiter.response().status == 200)
        }
        #expect(live.app.waits.count == 0)
    }

    @Test func filtersReceiveAndOpenByMessageDeliveryAndToken() throws {
        let live = try LiveServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        try live.issueMessage("-673096100", delivery: "7a3f1", token: "70757368546f6b656e")
        let receive = PendingRequest(
            port: live.port, target: "/_mock/wait?for=receive&messageId=-673096100&timeout=10s")
        let open = PendingRequest(port: live.port, target: "/_mock/wait?for=open&token=70757368546f6b656e&timeout=10s")
        while live.app.waits.count < 2 { usleep(1000) }
        #expect(try live.request("GET", "/r/?id=h1,other,1").status == 200)
        #expect(try live.request("GET", "/r/?id=hd7e15e5c,7a3f1,1").status == 200)
        #expect(try live.request("GET", "/r/?id=hffffffffd7e15e5c,7a3f1,2").status == 200)
        let received = try receive.response()
        #expect((received.object["items"] as? [[String: Any]])?.first?["rawId"] as? String == "hd7e15e5c,7a3f1,1")
        let opened = try open.response()
        #expect((opened.object["items"] as? [[String: Any]])?.first?["rawId"] as? String == "hffffffffd7e15e5c,7a3f1,2")
    }

    @Test(arguments: [
        ("/_mock/wait", "for must be registration, receive, open or request"),
        ("/_mock/wait?for=pizza", "for must be registration, receive, open or request"),
        ("/_mock/wait?for=open&count=0", "'count' must be an integer from 1 to 1000"),
        ("/_mock/wait?for=open&timeout=10h", "timeout must be a duration up to 5m, e.g. 500ms or 5s"),
        ("/_mock/wait?for=open&colour=red", "unknown parameter 'colour'"),
    ])
    func refusesBadParameters(_ target: String, _ message: String) throws {
        let live = try InProcessServer(inMemory: true)
        let response = try live.json("GET", target)
        #expect(response.status == 400)
        #expect((response.object["error"] as? String)?.hasPrefix(message) == true)
    }
}
