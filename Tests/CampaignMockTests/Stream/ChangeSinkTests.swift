import CampaignMock
import CampaignMockModel
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Synchronization
import Testing

@testable import CampaignMockStorage

/// The store's sink: what the waiters, the event stream and any other subscriber learn of a change.
@Suite("the store's sink of committed changes", .timeLimit(.minutes(3)))
struct ChangeSinkTests {
    /// A subscriber gets every row a request wrote, in the order written, the journal entry last (that
    /// they come before the answer is held by `StoreTests.subscribersGetABatchBeforeItsCompletions`: here
    /// the answer's way through the event loop would hide the order).
    @Test func aSubscriberGetsEveryRowOfARequestInOrder() throws {
        let live = try LiveServer.withSDKApplications()
        let seen = Mutex<[String]>([])
        live.app.store.sink.subscribe { changes in seen.withLock { $0 += changes.map(\.type.rawValue) } }
        live.app.store.sink.wantsDeviceRows = true
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(seen.withLock { $0 } == ["registration", "device", "request"])
        #expect(try live.request("GET", "/r/?id=h3039,d1,2").status == 200)
        #expect(seen.withLock { $0 } == ["registration", "device", "request", "open", "request"])
    }

    /// The device's row is built only while a subscriber reads it: the event stream, while a stream listens.
    @Test func aRegistrationHandsOnItsDevicesRowOnlyWhileAStreamListens() throws {
        let live = try LiveServer.withSDKApplications()
        let seen = Mutex<[String]>([])
        live.app.store.sink.subscribe { changes in seen.withLock { $0 += changes.map(\.type.rawValue) } }
        #expect(!live.app.store.sink.wantsDeviceRows)
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(seen.withLock { $0 } == ["registration", "request"])
        let reader = try StreamReader(port: live.port)
        while !live.app.store.sink.wantsDeviceRows { usleep(1000) }
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(seen.withLock { $0 } == ["registration", "request", "registration", "device", "request"])
        _ = reader
    }

    /// Each kind of change says what the filters of `/_mock/wait` and `/_mock/stream` compare, from what
    /// was written.
    @Test func aChangeSaysTheFactsItWasWrittenWith() throws {
        let hit = CommittedChange.hit(
            id: 1,
            HitRecord(
                trackingID: try TrackingID(parsing: "h3039,d7,1"), receivedAt: 0,
                link: TrackingEvent.Link(messageId: "12345", deliveryId: "d7", registrationToken: "tok")))
        #expect(hit.type == .receive)
        #expect(hit.value(of: .deliveryId) == "d7")
        #expect(hit.value(of: .messageValue) == "12345")
        #expect(hit.value(of: .token) == "tok")
        #expect(hit.value(of: .app) == nil)
        #expect(hit.mayMatch(.receive, allowed: [.token: ["tok"], .deliveryId: ["d7", "d8"]]))
        #expect(!hit.mayMatch(.receive, allowed: [.token: ["other"]]))
        #expect(!hit.mayMatch(.open, allowed: [:]))
        // A fact the change says nothing of may match: the waiter looks once more, never once less.
        #expect(hit.mayMatch(.receive, allowed: [.app: ["A"]]))

        let registration = CommittedChange.registration(
            RegistrationNotice(
                id: 1, receivedAt: "", registrationToken: "t1", integrationKey: "A", platform: .ios, userKey: "u",
                changes: ["new"], device: DeviceFields(), params: [AdditionalParam(name: "email", value: "x@y")]))
        #expect(registration.mayMatch(.registration, allowed: [.app: ["A"], .param("email"): ["x@y"]]))
        #expect(!registration.mayMatch(.registration, allowed: [.param("email"): ["z@y"]]))
        #expect(!registration.mayMatch(.registration, allowed: [.platform: ["android"]]))
    }
}
