package import CampaignMockModel
import CampaignMockNetwork
package import CampaignMockStorage
import CampaignMockSupport
import CampaignMockSystem
import Dispatch
import Synchronization

/// Sends composed messages to real devices through APNs and FCM, off the request path: sends run one at
/// a time on the sender's own queue, and each answer is stored with its push (and so reaches the event
/// stream) before the caller hears of it. Only devices registered in this mock, only those the allow-list
/// lets through (a `token:` pattern, or another pattern and a token trusted on this machine), and never
/// because a web page asked (docs/security.md).
package final class PushSender: Sendable {
    /// What is configured, for `/_mock/info` and the console: no path, key or id of a credential.
    package let status: SendingStatus
    private let clients: Clients
    private let store: Store
    private let allowList: SendAllowList
    private let autoSend: Bool
    /// The tokens the developer trusted on this machine (``trust(_:)``), until the server stops.
    private let trusted = Mutex<Set<String>>([])
    private let queue = DispatchQueue(label: "campaign-mock.push-sender")
    /// Messages queued and not yet answered.
    private let pending = Atomic<Int>(0)
    /// How many messages may wait for the queue (500 unless a test says); more are answered `blocked` at
    /// once, so an auto-send flood to an unreachable provider cannot grow without end.
    private let queueLimit: Int

    /// Reads the credentials now, so a bad key file stops the server at start with the setting's name.
    ///
    /// - Throws: ``ProviderSetupError``.
    package init(settings: ProviderSettings, store: Store, queueLimit: Int = 500) throws(ProviderSetupError) {
        self.queueLimit = queueLimit
        if settings.apns == nil && settings.fcm == nil {
            clients = Clients(apns: nil, fcm: nil)
        } else {
            // Only then: reading the system's CAs is most of the cost of a client context.
            let tls: TLSClientContext
            do {
                tls = try TLSClientContext(extraCAFile: settings.caFile)
            } catch {
                throw ProviderSetupError("providerCa: \(error)")
            }
            clients = Clients(
                apns: try settings.apns.map { settings throws(ProviderSetupError) in
                    try APNsClient(settings: settings, tls: tls)
                },
                fcm: try settings.fcm.map { settings throws(ProviderSetupError) in
                    try FCMClient(settings: settings, tls: tls)
                })
        }
        self.store = store
        allowList = settings.allowList
        autoSend = settings.autoSend
        status = SendingStatus(
            apns: settings.apns?.environment.rawValue, fcm: clients.fcm?.projectID,
            allowList: settings.allowList.patterns.map(\.description), autoSend: settings.autoSend)
    }

    /// Sends the messages of `push` — only the one to `token` when given — and hands `done` one
    /// ``PushSend`` per message, each already stored. Runs on the sender's queue; returns at once.
    ///
    /// - Parameter topic: the APNs topic, instead of the application's `bundleId`.
    package func send(
        _ push: ComposedPush, token: String? = nil, topic: String? = nil,
        done: @escaping @Sendable ([PushSend]) -> Void = { _ in }
    ) {
        let messages = push.messages.filter { token == nil || $0.registrationToken == token }
        let waiting = pending.add(messages.count, ordering: .relaxed).newValue
        guard waiting <= queueLimit else {
            pending.subtract(messages.count, ordering: .relaxed)
            return block(
                messages, of: push,
                "Not sent: \(queueLimit) messages are already waiting to be sent (a slow or unreachable provider). "
                    + "Send again once they are done.", done: done)
        }
        queue.async { [self] in
            var sends: [PushSend] = []
            for message in messages {
                let send = self.send(message, of: push, topic: topic)
                _ = try? store.writeAndWait { try $0.recordSend(send) }
                sends.append(send)
            }
            // Freed before the caller hears: a send made on hearing the answer finds the room.
            pending.subtract(messages.count, ordering: .relaxed)
            done(sends)
        }
    }

    /// Sends a push just composed when `autoSend` is on; does nothing otherwise. A push a web page's
    /// request composed (`fromPage`: ``HTTPRequest/crossSiteOrigin``) is not sent: its messages are
    /// answered `blocked`, saying how to send it.
    package func composed(_ push: ComposedPush, fromPage page: String?) {
        guard autoSend else { return }
        guard let page else { return send(push) }
        block(
            push.messages, of: push,
            "Not sent automatically: the push was composed by a request from a web page (\(page)), and a page "
                + "never causes a send. Send it from the console or with POST /_mock/push/\(push.id)/send.")
    }

    /// Lets pushes go to `token` when the allow-list has a pattern for it (``SendAllowList/verdict(_:trusted:)``),
    /// until the server stops; the console's *Trust for sending* and `POST /_mock/devices/{token}/trust`.
    package func trust(_ token: String) {
        trusted.withLock { _ = $0.insert(token) }
    }

    /// Takes back ``trust(_:)``.
    package func distrust(_ token: String) {
        trusted.withLock { _ = $0.remove(token) }
    }

    /// Takes back every ``trust(_:)`` (the devices were reset or replaced by an import).
    package func distrustAll() {
        trusted.withLock { $0.removeAll() }
    }

    /// The tokens trusted now (``trust(_:)``).
    package var trustedTokens: Set<String> { trusted.withLock { $0 } }

    package func isTrusted(_ token: String) -> Bool {
        trusted.withLock { $0.contains(token) }
    }

    /// The allow-list's pattern that matches `device`, a `token:` one first (it lets the device through on
    /// its own), or nil when none does.
    package func allowListMatch(_ device: SendAllowList.Device) -> String? {
        allowList.match(device)?.description
    }

    /// Answers each of `messages` `blocked` with `explanation`, stored with the push, without sending.
    private func block(
        _ messages: [ComposedMessage], of push: ComposedPush, _ explanation: String,
        done: @escaping @Sendable ([PushSend]) -> Void = { _ in }
    ) {
        let refused = messages.map { Self.unsent($0, of: push, explanation) }
        let record: @Sendable (StoreTransaction) throws -> Void = { transaction in
            for send in refused { try transaction.recordSend(send) }
        }
        store.write(record, completion: { _ in done(refused) })
    }

    /// Holds the provider clients; only the sender's queue uses them.
    private final class Clients: @unchecked Sendable {
        let apns: APNsClient?
        let fcm: FCMClient?

        init(apns: APNsClient?, fcm: FCMClient?) {
            self.apns = apns
            self.fcm = fcm
        }
    }

    /// One message: the checks, then the provider. On the sender's queue.
    private func send(_ message: ComposedMessage, of push: ComposedPush, topic: String?) -> PushSend {
        var send = Self.unsent(message, of: push, "")
        let provider = send.provider
        func finish(_ outcome: PushSendOutcome, _ explanation: String) -> PushSend {
            send.outcome = outcome
            send.explanation = explanation
            send.sentAtMicroseconds = Clock.wallClockMicroseconds()
            send.sentAt = RFC3339.string(microsecondsSince1970: send.sentAtMicroseconds ?? 0)
            return send
        }
        let found = try? store.read { reader in
            (
                try reader.devices(token: message.registrationToken, applicationKey: message.app).first,
                try reader.application(key: message.app)?.application
            )
        }
        guard let (device, application) = found, let device, let application else {
            return finish(.blocked, "Not sent: the device is no longer registered in this mock.")
        }
        let subject = SendAllowList.Device(userKey: device.userKey, token: device.registrationToken, app: message.app)
        switch allowList.verdict(subject, trusted: isTrusted(subject.token)) {
        case .allowed: break
        case .needsTrust(let pattern): return finish(.blocked, Self.needsTrust(subject, pattern))
        case .notListed: return finish(.blocked, Self.notAllowed(subject, listEmpty: allowList.patterns.isEmpty))
        }
        if let problem = ProviderInput.tokenProblem(message.registrationToken, for: provider) {
            return finish(.blocked, "Not sent: \(problem).")
        }
        let answered: Result<ProviderAnswer, ProviderFailure>
        switch provider {
        case .apns:
            guard let apns = clients.apns else {
                return finish(
                    .blocked,
                    "Not sent: APNs is not configured: start the server with --apns-key-file, --apns-key-id and "
                        + "--apns-team-id (config keys apnsKeyFile, apnsKeyId, apnsTeamId).")
            }
            send.destination = apns.settings.environment.rawValue
            guard let topic = topic ?? message.bundleId ?? application.bundleId else {
                return finish(
                    .blocked,
                    "Not sent: APNs needs the app's bundle id as its topic. Set bundleId on the application "
                        + "(PUT /_mock/apps/\(message.app)), or compose the push with one.")
            }
            if let problem = ProviderInput.topicProblem(topic) {
                return finish(.blocked, "Not sent: \(problem).")
            }
            guard let payload = message.apns else {
                return finish(.blocked, "Not sent: the message has no APNs payload.")
            }
            answered = Result { () throws(ProviderFailure) in
                try apns.send(
                    payload: Array(JSONText.compact(payload).utf8), to: message.registrationToken, topic: topic,
                    kind: APNsPushKind(payload: payload))
            }
        case .fcm:
            guard let fcm = clients.fcm else {
                return finish(
                    .blocked,
                    "Not sent: FCM is not configured: start the server with --fcm-service-account "
                        + "(config key fcmServiceAccount).")
            }
            send.destination = fcm.projectID
            guard let body = message.fcm else { return finish(.blocked, "Not sent: the message has no FCM message.") }
            answered = Result { () throws(ProviderFailure) in try fcm.send(Array(JSONText.compact(body).utf8)) }
        }
        switch answered {
        case .success(let answer):
            send.status = answer.status
            send.reason = answer.reason
            send.providerId = answer.providerId
            return finish(answer.isAccepted ? .accepted : .refused, answer.explanation)
        case .failure(let failure):
            return finish(.failed, "No answer: \(failure).")
        }
    }

    /// A `blocked` send of `message`, at this moment, saying `explanation`.
    private static func unsent(_ message: ComposedMessage, of push: ComposedPush, _ explanation: String) -> PushSend {
        let now = Clock.wallClockMicroseconds()
        var send = PushSend(
            pushId: push.id, messageId: message.messageId, registrationToken: message.registrationToken,
            app: message.app, provider: message.platform == .ios ? .apns : .fcm,
            sentAt: RFC3339.string(microsecondsSince1970: now), outcome: .blocked, explanation: explanation)
        send.sentAtMicroseconds = now
        return send
    }

    private static func needsTrust(_ device: SendAllowList.Device, _ pattern: SendAllowList.Pattern) -> String {
        "Not sent: sendAllow '\(pattern)' matches this device, but its token was not confirmed on this machine "
            + "(a device registers itself, so a userKey or app alone is no proof it is yours). Trust it in the "
            + "console (Devices, the device, Trust for sending) or with POST /_mock/devices/\(device.token)/trust, "
            + "or add sendAllow 'token:\(device.token)'."
    }

    private static func notAllowed(_ device: SendAllowList.Device, listEmpty: Bool) -> String {
        let suggestion = "token:\(device.token)"
        if listEmpty {
            return
                "Not sent: the send allow-list is empty, so nothing goes to a real device. Let this one through with "
                + "sendAllow '\(suggestion)' (--send-allow)."
        }
        return
            "Not sent: no sendAllow pattern matches this device (userKey '\(device.userKey ?? "")', token "
            + "'\(device.token)', app '\(device.app)'). Add one, such as '\(suggestion)'."
    }
}
