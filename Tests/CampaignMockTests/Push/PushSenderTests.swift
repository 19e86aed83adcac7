import CampaignMockStorage
import Dispatch
import Synchronization
import Testing

@testable import CampaignMockModel
@testable import CampaignMockPush

/// The sender's own rules, without a provider: its queue's limit, and a device no longer registered.
@Suite struct PushSenderTests {
    private func message(_ token: String) -> ComposedMessage {
        ComposedMessage(
            registrationToken: token, platform: .ios, app: "shop-ios", messageId: "100000\(token.count)",
            deliveryId: "7a001", tracking: .init(receive: "/r/?id=h1,7a001,1", open: "/r/?id=h1,7a001,2"))
    }

    private func sends(_ sender: PushSender, _ push: ComposedPush, token: String? = nil) -> [PushSend] {
        let answered = DispatchSemaphore(value: 0)
        let result = Mutex<[PushSend]>([])
        sender.send(push, token: token) { sends in
            result.withLock { $0 = sends }
            answered.signal()
        }
        answered.wait()
        return result.withLock { $0 }
    }

    @Test func messagesBeyondTheQueueLimitAreAnsweredBlockedAtOnceAndTheRestGoThrough() throws {
        let store = try Store(path: nil)
        defer { store.close() }
        let sender = try PushSender(settings: ProviderSettings(), store: store, queueLimit: 1)
        let push = ComposedPush(
            id: 1, createdAt: "2026-11-25T12:00:00.000Z", deliveryId: "7a001", idStyle: .v7,
            messages: [message("a1"), message("b22")], warnings: [])
        let refused = sends(sender, push)
        #expect(refused.map(\.registrationToken) == ["a1", "b22"])
        #expect(refused.allSatisfy { $0.outcome == .blocked && $0.explanation.contains("already waiting") })
        // One message fits the queue: it is looked at (and blocked, its device not being registered).
        let one = sends(sender, push, token: "a1")
        #expect(one.count == 1 && one[0].outcome == .blocked)
        #expect(one[0].explanation.contains("no longer registered"))
        // The queue is free again once answered.
        #expect(sends(sender, push, token: "b22").first?.explanation.contains("no longer registered") == true)
    }

    /// An access token is used for its `expires_in` less a minute, within the hour Google grants, and never
    /// for less than nothing, whatever a broken token endpoint answers.
    @Test(arguments: [(0, 0), (3599, 3539), (1_000_000, 3540), (Int.min, 0), (Int.max, 3540)])
    func anAccessTokensLifetimeIsClamped(_ expiresIn: Int, _ seconds: Int) {
        #expect(FCMClient.lifetime(expiresIn: expiresIn) == .seconds(seconds))
    }
}
