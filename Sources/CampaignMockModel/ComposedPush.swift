/// What `POST /_mock/push` answers, and `GET /_mock/push/{id}` returns again.
public struct ComposedPush: Sendable, Codable, Equatable {
    public var id: Int64
    public var createdAt: String
    /// `_dId`: one delivery per push, lowercase hex (docs/product.md §10, U7).
    public var deliveryId: String
    public var idStyle: MessageIDStyle
    public var messages: [ComposedMessage]
    public var warnings: [String]
    /// Every send of its messages through APNs or FCM, oldest first (empty when it is composed).
    public var sends: [PushSend]?
    /// The tracking hits its messages brought, in the list of pushes (`GET /_mock/push`); absent elsewhere.
    public var hits: Hits?
    /// `createdAt` in microseconds since 1970, for the server's own readers of a push it composed (the
    /// integration checks), which then need not parse the text back. Not part of the JSON: nil in a push
    /// decoded from it.
    package var createdAtMicroseconds: Int64?

    private enum CodingKeys: String, CodingKey {
        case id, createdAt, deliveryId, idStyle, messages, warnings, sends, hits
    }

    /// How many receive (tag 1) and open (tag 2) hits arrived for a push's messages.
    public struct Hits: Sendable, Codable, Equatable {
        public var receive: Int
        public var open: Int

        public init(receive: Int, open: Int) {
            self.receive = receive
            self.open = open
        }
    }

    public init(
        id: Int64, createdAt: String, deliveryId: String, idStyle: MessageIDStyle, messages: [ComposedMessage],
        warnings: [String]
    ) {
        self.id = id
        self.createdAt = createdAt
        self.deliveryId = deliveryId
        self.idStyle = idStyle
        self.messages = messages
        self.warnings = warnings
    }
}

/// A page of composed pushes (`GET /_mock/push`), newest first.
public struct PushPage: Sendable, Codable, Equatable {
    public var pushes: [ComposedPush]
    /// Pushes in all (not only on this page).
    public var total: Int
    /// Pass as `before` for the next page; nil when this page is the last.
    public var nextCursor: Int64?

    public init(pushes: [ComposedPush], total: Int, nextCursor: Int64? = nil) {
        self.pushes = pushes
        self.total = total
        self.nextCursor = nextCursor
    }
}

/// The notification for one device.
public struct ComposedMessage: Sendable, Codable, Equatable {
    public struct Tracking: Sendable, Codable, Equatable {
        /// The path the SDK calls when the notification arrives (tag 1) and when it is opened (tag 2).
        public var receive: String
        public var open: String

        public init(
            receive: String, open: String
        ) {
            self.receive = receive
            self.open = open
        }
    }

    public var registrationToken: String
    public var platform: Platform
    public var app: String
    /// `_mId`, as a string in every payload.
    public var messageId: String
    public var deliveryId: String
    /// The app's bundle id (iOS) or package name (Android), from the push or its application, when known.
    public var bundleId: String?
    public var packageName: String?
    /// iOS: the APNs payload, the body of an `.apns` file, and the `xcrun simctl push` line.
    public var apns: JSONValue?
    public var apnsFile: String?
    public var simctl: String?
    /// Android: an FCM HTTP v1 message, and adb lines.
    public var fcm: JSONValue?
    public var adb: [String]?
    public var tracking: Tracking
    /// The payload check of `apns` (iOS) or `fcm` (Android); absent from pushes stored before it existed.
    public var check: PayloadCheck?

    public init(
        registrationToken: String, platform: Platform, app: String, messageId: String, deliveryId: String,
        bundleId: String? = nil, packageName: String? = nil, apns: JSONValue? = nil, apnsFile: String? = nil,
        simctl: String? = nil, fcm: JSONValue? = nil, adb: [String]? = nil, tracking: Tracking,
        check: PayloadCheck? = nil
    ) {
        self.registrationToken = registrationToken
        self.platform = platform
        self.app = app
        self.messageId = messageId
        self.deliveryId = deliveryId
        self.bundleId = bundleId
        self.packageName = packageName
        self.apns = apns
        self.apnsFile = apnsFile
        self.simctl = simctl
        self.fcm = fcm
        self.adb = adb
        self.tracking = tracking
        self.check = check
    }
}

extension ComposedPush {
    /// One message of the push: ``ComposedMessage``.
    public typealias Message = ComposedMessage
}
