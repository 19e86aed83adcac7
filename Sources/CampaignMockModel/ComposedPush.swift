/// What `POST /_mock/push` answers, and `GET /_mock/push/{id}` returns again.
package struct ComposedPush: Sendable, Codable, Equatable {
    package var id: Int64
    package var createdAt: String
    /// `_dId`: one delivery per push, lowercase hex (docs/product.md §10, U7).
    package var deliveryId: String
    package var idStyle: MessageIDStyle
    package var messages: [ComposedMessage]
    package var warnings: [String]

    package init(
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

/// The notification for one device.
package struct ComposedMessage: Sendable, Codable, Equatable {
    package struct Tracking: Sendable, Codable, Equatable {
        /// The path the SDK calls when the notification arrives (tag 1) and when it is opened (tag 2).
        package var receive: String
        package var open: String

        package init(
            receive: String, open: String
        ) {
            self.receive = receive
            self.open = open
        }
    }

    package var registrationToken: String
    package var platform: Platform
    package var app: String
    /// `_mId`, as a string in every payload.
    package var messageId: String
    package var deliveryId: String
    /// iOS: the APNs payload, the body of an `.apns` file, and the `xcrun simctl push` line.
    package var apns: JSONValue?
    package var apnsFile: String?
    package var simctl: String?
    /// Android: an FCM HTTP v1 message, and adb lines.
    package var fcm: JSONValue?
    package var adb: [String]?
    package var tracking: Tracking

    package init(
        registrationToken: String, platform: Platform, app: String, messageId: String, deliveryId: String,
        apns: JSONValue? = nil, apnsFile: String? = nil, simctl: String? = nil, fcm: JSONValue? = nil,
        adb: [String]? = nil, tracking: Tracking
    ) {
        self.registrationToken = registrationToken
        self.platform = platform
        self.app = app
        self.messageId = messageId
        self.deliveryId = deliveryId
        self.apns = apns
        self.apnsFile = apnsFile
        self.simctl = simctl
        self.fcm = fcm
        self.adb = adb
        self.tracking = tracking
    }
}
