import CampaignMockModel
import CampaignMockSystem

/// The rules over composed pushes and their tracking hits: `open-without-receive`, `silent-push-opened`,
/// `duplicate-hit`, `unknown-message`, `sent-not-received`.
extension ChecksEngine {
    /// What the checks remember of a composed message.
    struct MessageState: Sendable {
        var facts: CheckObservation.ComposedMessageFacts
        var receives = 0
        var opens = 0
        var firstReceive: Int64?
        /// The findings that counted this message as missing its receive; they count one less if it comes.
        var countedMissing: [FindingKey] = []
    }

    mutating func composed(_ message: CheckObservation.ComposedMessageFacts, _ changes: inout [CheckChange]) {
        _ = messages.insert(message.messageId, MessageState(facts: message))
    }

    mutating func sendAccepted(_ send: CheckObservation.AcceptedSend) {
        guard let message = messages[send.messageId], message.facts.receive == .always, message.firstReceive == nil,
            waitingSends.count < settings.messageLimit
        else { return }
        waitingSends.append(
            DeadlineQueue.Entry(deadline: send.at + settings.receiveWindow, messageId: send.messageId, at: send.at))
    }

    mutating func tracked(_ hit: CheckObservation.Hit, _ changes: inout [CheckChange]) {
        let action = hit.kind.rawValue
        guard let link = hit.link else { return unknownMessage(hit, action, &changes) }
        // A message composed before this server started (or long forgotten): nothing to compare with.
        guard var message = messages[link.messageId] else { return }
        let facts = message.facts
        if let sender = Self.platform(ofUserAgent: hit.userAgent), sender != facts.platform {
            record(
                Note(
                    rule: .unknownMessage, subject: "\(facts.app):\(facts.token):platform", severity: .warning,
                    title: "A \(sender.rawValue) app tracked a message composed for \(facts.platform.rawValue)",
                    message:
                        "\(Self.aHit(action)) for message \(facts.messageId) came from \(sender.withArticle) SDK "
                        + "(User-Agent '\(hit.userAgent ?? "")'), but the message was composed for "
                        + "\(facts.platform.withArticle) device (\(facts.token), application \(facts.app)).",
                    fix:
                        "Send each device the push composed for it: compose for the device's own registration token "
                        + "and application, and make the app read _mId and _dId from the push it received.",
                    app: facts.app, platform: facts.platform, token: facts.token, messageId: facts.messageId,
                    at: hit.at, requestId: hit.requestId), &changes)
            return
        }
        if hit.deliveryId != facts.deliveryId {
            record(
                Note(
                    rule: .unknownMessage, subject: "\(facts.app):\(facts.token):delivery", severity: .warning,
                    title: "A hit names another delivery than its message's",
                    message:
                        "\(Self.aHit(action)) for message \(facts.messageId) names delivery '\(hit.deliveryId)', but the "
                        + "message was composed in delivery '\(facts.deliveryId)' (device \(facts.token)).",
                    fix:
                        "Pass the push's own _dId to the SDK's tracking call, as the string the payload carries "
                        + "(iOS: the userInfo's top level; Android: the data message's keys).",
                    app: facts.app, platform: facts.platform, token: facts.token, messageId: facts.messageId,
                    at: hit.at, requestId: hit.requestId), &changes)
        }
        if hit.kind == .receive {
            message.receives += 1
            if message.firstReceive == nil {
                message.firstReceive = hit.at
                // The receive came after all: what counted it missing counts one less.
                for id in message.countedMissing { retract(id, &changes) }
                message.countedMissing = []
            }
            if message.receives > 1 { duplicate(facts, action, count: message.receives, hit, &changes) }
        } else {
            message.opens += 1
            if message.opens > 1 { duplicate(facts, action, count: message.opens, hit, &changes) }
            if facts.silent && message.opens == 1 { silentOpened(facts, hit, &changes) }
            if message.opens == 1 && message.firstReceive == nil && waitingOpens.count < settings.messageLimit {
                waitingOpens.append(
                    DeadlineQueue.Entry(
                        deadline: hit.at + settings.openGrace, messageId: facts.messageId, at: hit.at,
                        requestId: hit.requestId))
            }
        }
        messages.update(link.messageId) { $0 = message }
    }

    /// `An open hit`, `A receive hit`: how a finding's message begins.
    private static func aHit(_ action: String) -> String {
        "\(action == "open" ? "An" : "A") \(action) hit"
    }

    private mutating func unknownMessage(_ hit: CheckObservation.Hit, _ action: String, _ changes: inout [CheckChange])
    {
        // `h<messageId>,<deliveryId>`, in bytes: the tracking id parsed, its message id is hex or a UUID.
        var messagePart = hit.trackingId.utf8[...]
        if let comma = messagePart.firstIndex(of: UInt8(ascii: ",")) { messagePart = messagePart[..<comma] }
        if messagePart.first == UInt8(ascii: "h") { messagePart = messagePart.dropFirst() }
        let messageID = String(Substring(messagePart))
        record(
            Note(
                // One finding for them all: a broken app or a load test sends many, each for another id.
                rule: .unknownMessage, subject: "never-composed", severity: .warning,
                title: "Hits for messages this mock never composed",
                message:
                    "\(Self.aHit(action)) arrived for message id '\(messageID)' of delivery '\(hit.deliveryId)' "
                    + "(/r/?id=\(hit.trackingId),\(hit.kind.tag)); this mock composed no such message, so it is linked to "
                    + "no device.",
                fix:
                    "Compose the push with this mock (campaign-mock push, POST /_mock/push) and deliver that one; "
                    + "make the app pass the push's own _mId and _dId, as strings, to the SDK's tracking calls "
                    + "(iOS: the userInfo's top level; Android: the data message's keys).",
                messageId: messageID, at: hit.at, requestId: hit.requestId), &changes)
    }

    private mutating func duplicate(
        _ facts: CheckObservation.ComposedMessageFacts, _ action: String, count: Int, _ hit: CheckObservation.Hit,
        _ changes: inout [CheckChange]
    ) {
        let handlers =
            action == "receive"
            ? (facts.platform == .ios
                ? "iOS calls both application(_:didReceiveRemoteNotification:fetchCompletionHandler:) and "
                    + "userNotificationCenter(_:willPresent:) for a push with content-available in the foreground; "
                    + "track the receive in one of them"
                : "track the receive once, in onMessageReceived (or let AEPMessagingService.handleRemoteMessage "
                    + "track it, and do not call trackNotificationReceive too)")
            : (facts.platform == .ios
                ? "track the open once, in userNotificationCenter(_:didReceive:withCompletionHandler:)"
                : "track the open once, where the notification's tap is handled (AEPMessagingService tracks it "
                    + "itself for the notifications it shows)")
        record(
            Note(
                rule: .duplicateHit, subject: "\(facts.app):\(facts.token):\(action)", severity: .warning,
                title: "The same \(action) tracked more than once",
                message:
                    "Message \(facts.messageId) got \(count) \(action) hits from device \(facts.token) "
                    + "(application \(facts.app)); the SDK sends one per call, so two handlers both track it.",
                fix: handlers + ".",
                app: facts.app, platform: facts.platform, token: facts.token, messageId: facts.messageId,
                at: hit.at, requestId: hit.requestId), &changes)
    }

    private mutating func silentOpened(
        _ facts: CheckObservation.ComposedMessageFacts, _ hit: CheckObservation.Hit, _ changes: inout [CheckChange]
    ) {
        record(
            Note(
                rule: .silentPushOpened, subject: "\(facts.app):\(facts.token)", severity: .warning,
                title: "An open was tracked for a silent push",
                message:
                    "Message \(facts.messageId) was composed silent (nothing to show: "
                    + (facts.platform == .ios
                        ? "content-available without alert, sound or badge"
                        : "a data message without title or body")
                    + "), yet device \(facts.token) sent an open hit for it. Nobody can tap a notification that "
                    + "was never shown.",
                fix:
                    "Track only the receive of a silent push: call the SDK's open tracking (trackNotificationClick; "
                    + "legacy SDK: notifyOpening, NL_TRACK_CLICK) only from the handler of a tapped notification, never from the "
                    + "handler that runs when a push arrives.",
                app: facts.app, platform: facts.platform, token: facts.token, messageId: facts.messageId,
                at: hit.at, requestId: hit.requestId), &changes)
    }

    /// An open's grace ended: was its receive there?
    mutating func openWaited(_ due: DeadlineQueue.Entry, _ changes: inout [CheckChange]) {
        guard var message = messages[due.messageId], message.firstReceive == nil, !faultMayExplain(message) else {
            return
        }
        let facts = message.facts
        let grace = Self.seconds(settings.openGrace)
        let note: Note
        switch facts.receive {
        case .always:
            note = Note(
                rule: .openWithoutReceive, subject: "\(facts.app):\(facts.token)", severity: .error,
                title: "Opened without a receive: receive tracking is not wired",
                message:
                    "Device \(facts.token) opened message \(facts.messageId) with no receive hit before it or "
                    + "within \(grace) after. "
                    + (facts.platform == .android
                        ? "It is a data message: onMessageReceived runs before the notification shows, so the SDK "
                            + "tracks its receive there."
                        : "It has content-available: application(_:didReceiveRemoteNotification:"
                            + "fetchCompletionHandler:) runs when it arrives, so the SDK tracks its receive there."),
                fix: facts.platform == .android
                    ? "Call the SDK's receive tracking in onMessageReceived, before showing the notification: "
                        + "AEPMessagingService.handleRemoteMessage(this, message) or "
                        + "CampaignClassic.trackNotificationReceive(data) (AEP extension), "
                        + "Neolane.getInstance().notifyReceive(mId, dId) (legacy SDK)."
                    : "Call the SDK's receive tracking in application(_:didReceiveRemoteNotification:"
                        + "fetchCompletionHandler:) (with the Remote notifications background mode): "
                        + "CampaignClassic.trackNotificationReceive(withUserInfo:) (AEP extension), "
                        + "[[Neolane_SDK getInstance] track:userInfo :NL_TRACK_RECEIVE] (legacy SDK).",
                app: facts.app, platform: facts.platform, token: facts.token, messageId: facts.messageId,
                at: due.at, requestId: due.requestId)
        case .foregroundOrExtension:
            note = Note(
                rule: .openWithoutReceive, subject: "\(facts.app):\(facts.token):background", severity: .info,
                title: "Opened without a receive, as iOS does for a visible push in the background",
                message:
                    "Device \(facts.token) opened message \(facts.messageId) with no receive hit. It is a visible "
                    + "push without content-available: when it arrives in the background, iOS runs none of the "
                    + "app's code until it is tapped, so no receive is tracked unless a notification service "
                    + "extension tracks it. This is the SDK working as designed.",
                fix:
                    "Nothing is broken. To count receives of visible pushes, track the receive in a notification "
                    + "service extension (the push needs mutable-content: 1), or send the push with "
                    + "content-available: 1 so that application(_:didReceiveRemoteNotification:"
                    + "fetchCompletionHandler:) tracks it.",
                app: facts.app, platform: facts.platform, token: facts.token, messageId: facts.messageId,
                at: due.at, requestId: due.requestId)
        }
        record(note, &changes)
        message.countedMissing.append(FindingKey(rule: note.rule, subject: note.subject))
        messages.update(due.messageId) { $0 = message }
    }

    /// A send's window ended: was its receive there?
    mutating func sendWaited(_ due: DeadlineQueue.Entry, _ changes: inout [CheckChange]) {
        guard var message = messages[due.messageId], message.firstReceive == nil, !faultMayExplain(message) else {
            return
        }
        let facts = message.facts
        let provider = facts.platform == .ios ? "APNs" : "FCM"
        let window = Self.seconds(settings.receiveWindow)
        let note = Note(
            rule: .sentNotReceived, subject: "\(facts.app):\(facts.token)", severity: .warning,
            title: "\(provider) accepted the push, and no receive came back",
            message:
                "\(provider) accepted message \(facts.messageId) for device \(facts.token) at "
                + "\(RFC3339.string(microsecondsSince1970: due.at)), and no receive hit arrived within "
                + "\(window). The SDK tracks this push's receive when it arrives "
                + "(\(facts.platform == .ios ? "content-available" : "a data message")), so the loop is broken on "
                + "the phone.",
            fix:
                "Check on the phone: notifications allowed and the app not force-stopped; the app hands the push "
                + "to the SDK's receive tracking ("
                + (facts.platform == .ios
                    ? "application(_:didReceiveRemoteNotification:fetchCompletionHandler:), Remote notifications "
                        + "background mode"
                    : "onMessageReceived, AEPMessagingService.handleRemoteMessage or trackNotificationReceive")
                + "); the SDK's tracking server points at this mock and privacy is opted in.",
            app: facts.app, platform: facts.platform, token: facts.token, messageId: facts.messageId, at: due.at)
        record(note, &changes)
        message.countedMissing.append(FindingKey(rule: note.rule, subject: note.subject))
        messages.update(due.messageId) { $0 = message }
    }

    /// Whether a tracking request failed by a fault rule since the message was composed: the missing receive
    /// may be the one it swallowed (`fault-active` says so).
    private func faultMayExplain(_ message: MessageState) -> Bool {
        lastTrackingFault.map { $0 >= message.facts.at } ?? false
    }

    /// The platform whose SDK sent a request, when its User-Agent says: the AEP extensions send a browser-like
    /// one naming the OS (`… Android 14 …`, `… iPhone; CPU OS 17_0 …`), the legacy SDKs the system's
    /// (`Dalvik/2.1.0 (Linux; U; Android 14 …)`, `App/1 CFNetwork/1410 Darwin/22.6.0`).
    static func platform(ofUserAgent userAgent: String?) -> Platform? {
        guard let userAgent else { return nil }
        if userAgent.contains("Android") || userAgent.contains("Dalvik") { return .android }
        for word in ["iPhone", "iPad", "iOS", "CFNetwork", "Darwin"] where userAgent.contains(word) { return .ios }
        return nil
    }

    /// `2 min`, `10 s`.
    static func seconds(_ micros: Int64) -> String {
        let seconds = micros / 1_000_000
        return seconds >= 60 && seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
    }
}
