/// `POST /_mock/push`: whom to notify and what the notification says.
package struct PushRequest: Sendable, Codable, Equatable {
    /// Every device with this registration token (narrow with `app`).
    package var token: String?
    /// Every device of this user in `app`.
    package var userKey: String?
    /// The integration key.
    package var app: String?
    /// Only devices of this platform (the CLI's `--format fcm` needs an Android device, `apns` an iOS one).
    package var platform: Platform?
    package var title: String?
    package var body: String?
    /// APNs sound; FCM gets it as a data key.
    package var sound: String?
    package var badge: Int?
    package var category: String?
    /// A background push: APNs `content-available: 1`, no alert.
    package var silent: Bool?
    package var mutableContent: Bool?
    /// Shown by rich-notification extensions; also sets `mutable-content` on iOS.
    package var mediaUrl: String?
    /// Free keys copied into the payload (as strings).
    package var variables: [String: String]?
    package var idStyle: MessageIDStyle?
    /// The app's bundle id, for the `.apns` file's `Simulator Target Bundle` and the simctl line.
    package var bundleId: String?
    /// The Android package, for the adb lines.
    package var androidPackage: String?

    package init() {}

    /// Checks the request; the message names the field.
    package func validate() throws(PushError) {
        switch (token, userKey, app) {
        case (.some, nil, _), (nil, .some, .some): break
        case (.some, .some, _): throw PushError("give token, or userKey with app, not both")
        case (nil, .some, nil): throw PushError("userKey needs app (the integration key)")
        case (nil, nil, _): throw PushError("give token, or userKey with app")
        }
        if silent != true && (title ?? "").isEmpty && (body ?? "").isEmpty {
            throw PushError("a notification needs a title or a body (or silent: true)")
        }
        if let badge, badge < 0 { throw PushError("badge must be 0 or more") }
        for reserved in ["aps", "_mId", "_dId"] where variables?[reserved] != nil {
            throw PushError("variable '\(reserved)' is set by the mock")
        }
    }
}

/// Why a push cannot be composed (answered 400, or 404 when no device matches).
package struct PushError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package let isNotFound: Bool
    package init(_ message: String, isNotFound: Bool = false) {
        self.message = message
        self.isNotFound = isNotFound
    }
    package var description: String { message }

    package init(
        message: String, isNotFound: Bool
    ) {
        self.message = message
        self.isNotFound = isNotFound
    }
}
