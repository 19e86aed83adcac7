import CampaignMockJournal
package import CampaignMockModel
package import CampaignMockStorage
import CampaignMockSupport

/// Turns a committed batch of the store's changes (``CommittedChange``) into what the integration checks
/// observe: accepted registrations and hits with the id of their journaled request, refused registrations,
/// composed messages, accepted sends, and requests a fault rule failed. Everything comes from what was
/// written; nothing is read back.
package enum ChecksFeed {
    /// The observations of `changes`, in commit order. `knownKeys` is asked only for a registration refused
    /// for an unknown key.
    package static func observations(
        _ changes: [CommittedChange], knownKeys: () -> [String: Platform]
    ) -> [CheckObservation] {
        var observations: [CheckObservation] = []
        // A registration or a hit comes before its request's journal entry, in the same job: it waits for the
        // request's id in place, last, and what is observed meanwhile goes before it (it is not moved about).
        var waiting = false
        func add(_ observation: CheckObservation) {
            if waiting {
                observations.insert(observation, at: observations.count - 1)
            } else {
                observations.append(observation)
            }
        }
        for change in changes {
            switch change {
            case .registration(let notice):
                observations.append(registered(notice))
                waiting = true
            case .hit(_, let hit):
                observations.append(
                    .hit(
                        CheckObservation.Hit(
                            kind: hit.trackingID.tag, trackingId: trackingID(hit.trackingID.raw),
                            deliveryId: hit.trackingID.deliveryID, link: hit.link, userAgent: hit.userAgent,
                            at: hit.receivedAt)))
                waiting = true
            case .request(let id, let record):
                if waiting {
                    observations[observations.count - 1].requestId = id
                    waiting = false
                } else if let failure = failed(id, record, knownKeys: knownKeys) {
                    observations.append(failure)
                }
            case .push(let push):
                let at = push.createdAtMicroseconds ?? 0
                for message in push.messages { add(.composed(composed(message, at: at))) }
            case .send(let send) where send.outcome == .accepted:
                add(
                    .sendAccepted(
                        CheckObservation.AcceptedSend(
                            messageId: send.messageId, token: send.registrationToken, app: send.app,
                            provider: send.provider, at: send.sentAtMicroseconds ?? 0)))
            case .send, .device:
                break
            }
        }
        return observations
    }

    private static func registered(_ notice: RegistrationNotice) -> CheckObservation {
        .registered(
            CheckObservation.Registration(
                app: notice.integrationKey, platform: notice.platform, token: notice.registrationToken,
                userKey: notice.userKey, params: notice.params, identical: notice.changed == [],
                at: notice.receivedAtMicroseconds ?? 0))
    }

    /// `h3039,7a001` of `h3039,7a001,1` (the tag is one digit after the last comma: found in bytes).
    private static func trackingID(_ raw: String) -> String {
        guard let comma = raw.utf8.lastIndex(of: UInt8(ascii: ",")) else { return raw }
        return String(raw[..<comma])
    }

    /// A refused registration, or a request a fault rule failed: from the record's ``RequestFact``.
    private static func failed(_ id: Int64, _ record: JournalRecord, knownKeys: () -> [String: Platform])
        -> CheckObservation?
    {
        guard let fact = record.fact else { return nil }
        let at = record.receivedAtMicros
        // A fault that only delayed the request let the endpoint answer it: its refusal follows.
        if case .failed(let rule) = fact.fault {
            return .faultFailed(
                CheckObservation.FaultFailure(
                    ruleId: rule, endpoint: fact.endpoint, status: record.status, app: record.appKey, at: at,
                    requestId: id))
        }
        guard let cause = fact.refusal else { return nil }
        let platform: Platform
        switch fact.endpoint {
        case .registrationIOS: platform = .ios
        case .registrationAndroid: platform = .android
        default: return nil
        }
        var known: [String: Platform] = [:]
        if case .unknownIntegrationKey = cause { known = knownKeys() }
        return .registrationRefused(
            CheckObservation.RefusedRegistration(
                platform: platform, app: record.appKey, status: record.status, cause: cause, knownKeys: known, at: at,
                requestId: id))
    }

    /// What a composed message means for its hits (docs/checks.md): whether the app's code runs when it
    /// arrives, and whether it shows anything.
    static func composed(_ message: ComposedMessage, at: Int64) -> CheckObservation.ComposedMessageFacts {
        let receive: ReceiveTracking
        let silent: Bool
        switch message.platform {
        case .ios:
            let aps = message.apns?["aps"]
            let wakes = aps?["content-available"] != nil
            receive = wakes ? .always : .foregroundOrExtension
            silent = wakes && aps?["alert"] == nil && aps?["sound"] == nil && aps?["badge"] == nil
        case .android:
            let fcm = message.fcm?["message"]
            // A notification block is shown by Android itself in the background: no app code runs.
            receive = fcm?["notification"] == nil ? .always : .foregroundOrExtension
            let data = fcm?["data"]
            silent =
                fcm?["notification"] == nil
                && ["title", "_msg", "adb_title", "adb_body"].allSatisfy {
                    data?[$0] == nil
                }
        }
        return CheckObservation.ComposedMessageFacts(
            messageId: message.messageId, deliveryId: message.deliveryId, app: message.app,
            platform: message.platform, token: message.registrationToken, receive: receive, silent: silent, at: at)
    }
}

extension CheckObservation {
    /// The journaled request the observation came with.
    var requestId: Int64? {
        get {
            switch self {
            case .registered(let value): value.requestId
            case .registrationRefused(let value): value.requestId
            case .hit(let value): value.requestId
            case .faultFailed(let value): value.requestId
            case .composed, .sendAccepted: nil
            }
        }
        set {
            switch self {
            case .registered(var value):
                value.requestId = newValue
                self = .registered(value)
            case .hit(var value):
                value.requestId = newValue
                self = .hit(value)
            default: break
            }
        }
    }
}
