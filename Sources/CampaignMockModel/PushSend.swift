/// The service a composed message is sent through to a real device.
public enum PushProvider: String, Sendable, ClosedSet {
    /// Apple Push Notification service: token-based auth, HTTP/2.
    case apns
    /// Firebase Cloud Messaging, HTTP v1 API.
    case fcm
}

/// How a send ended.
public enum PushSendOutcome: String, Sendable, ClosedSet {
    /// The provider took the message (APNs 200, FCM a message name); delivery to the device is its job.
    case accepted
    /// The provider answered with a refusal (a bad token, an unregistered device, a wrong topic…).
    case refused
    /// No answer from the provider: it could not be reached, or the credentials could not be used.
    case failed
    /// The mock did not send: the send allow-list does not let this device through, or nothing is
    /// configured for the provider.
    case blocked
}

/// One composed message sent (or not) through a provider: what `POST /_mock/push/{id}/send` answers per
/// message, what `GET /_mock/push/{id}` lists under `sends`, and the `send` event of the stream.
public struct PushSend: Sendable, Codable, Equatable {
    public var pushId: Int64
    /// `_mId` of the message.
    public var messageId: String
    public var registrationToken: String
    /// The application's integration key.
    public var app: String
    public var provider: PushProvider
    /// APNs: `sandbox` or `production`; FCM: the Firebase project id.
    public var destination: String?
    /// RFC 3339, when the answer arrived (or the send was given up).
    public var sentAt: String
    public var outcome: PushSendOutcome
    /// The provider's HTTP status, when it answered.
    public var status: Int?
    /// The provider's reason: APNs `reason` (`BadDeviceToken`), FCM `errorCode` or `status` (`UNREGISTERED`).
    public var reason: String?
    /// The provider's id of the accepted message: APNs `apns-id`, FCM the message `name`.
    public var providerId: String?
    /// In words: what happened and, for a refusal, the likely cause and what to do.
    public var explanation: String
    /// `sentAt` in microseconds since 1970, for the server's own readers of a send it made (the integration
    /// checks). Not part of the JSON: nil in a send decoded from it.
    package var sentAtMicroseconds: Int64?

    private enum CodingKeys: String, CodingKey {
        case pushId, messageId, registrationToken, app, provider, destination, sentAt, outcome, status, reason
        case providerId, explanation
    }

    public init(
        pushId: Int64, messageId: String, registrationToken: String, app: String, provider: PushProvider,
        destination: String? = nil, sentAt: String, outcome: PushSendOutcome, status: Int? = nil,
        reason: String? = nil, providerId: String? = nil, explanation: String
    ) {
        self.pushId = pushId
        self.messageId = messageId
        self.registrationToken = registrationToken
        self.app = app
        self.provider = provider
        self.destination = destination
        self.sentAt = sentAt
        self.outcome = outcome
        self.status = status
        self.reason = reason
        self.providerId = providerId
        self.explanation = explanation
    }
}

/// `POST /_mock/push/{id}/send`: which messages of the push to send (all when no token is named).
public struct PushSendRequest: Sendable, Codable, Equatable {
    /// Only the message to this device.
    public var registrationToken: String?
    /// The APNs topic, instead of the application's `bundleId`.
    public var apnsTopic: String?

    public init(registrationToken: String? = nil, apnsTopic: String? = nil) {
        self.registrationToken = registrationToken
        self.apnsTopic = apnsTopic
    }
}

/// What `POST /_mock/push/{id}/send` answers: one send per message, in the push's order.
public struct PushSendList: Sendable, Codable, Equatable {
    public var sends: [PushSend]

    public init(sends: [PushSend]) {
        self.sends = sends
    }
}
