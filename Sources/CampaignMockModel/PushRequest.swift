/// `POST /_mock/push`: whom to notify and what the notification says.
public struct PushRequest: Sendable, Codable, Equatable {
    /// Every device with this registration token (narrow with `app`).
    public var token: String?
    /// Every device of this user in `app`.
    public var userKey: String?
    /// The integration key.
    public var app: String?
    /// Only devices of this platform (the CLI's `--format fcm` needs an Android device, `apns` an iOS one).
    public var platform: Platform?
    public var title: String?
    public var body: String?
    /// APNs sound; FCM gets it as a data key.
    public var sound: String?
    public var badge: Int?
    public var category: String?
    /// A background push: APNs `content-available: 1`, no alert.
    public var silent: Bool?
    public var mutableContent: Bool?
    /// Shown by rich-notification extensions; also sets `mutable-content` on iOS.
    public var mediaUrl: String?
    /// The FCM message's `android.priority`: `high` for a notification, `normal` for a silent push when not
    /// given.
    public var androidPriority: AndroidPriority?
    /// Free keys copied into the payload (as strings).
    public var variables: [String: String]?
    public var idStyle: MessageIDStyle?
    /// The app's bundle id, for the `.apns` file's `Simulator Target Bundle` and the simctl line; the
    /// application's `bundleId` when not given.
    public var bundleId: String?
    /// The Android package, for the adb lines; the application's `packageName` when not given.
    public var androidPackage: String?

    public init(
        token: String? = nil, userKey: String? = nil, app: String? = nil, platform: Platform? = nil,
        title: String? = nil, body: String? = nil, sound: String? = nil, badge: Int? = nil, category: String? = nil,
        silent: Bool? = nil, mutableContent: Bool? = nil, mediaUrl: String? = nil,
        androidPriority: AndroidPriority? = nil, variables: [String: String]? = nil, idStyle: MessageIDStyle? = nil,
        bundleId: String? = nil, androidPackage: String? = nil
    ) {
        self.token = token
        self.userKey = userKey
        self.app = app
        self.platform = platform
        self.title = title
        self.body = body
        self.sound = sound
        self.badge = badge
        self.category = category
        self.silent = silent
        self.mutableContent = mutableContent
        self.mediaUrl = mediaUrl
        self.androidPriority = androidPriority
        self.variables = variables
        self.idStyle = idStyle
        self.bundleId = bundleId
        self.androidPackage = androidPackage
    }

    /// Checks the request; the message names the field.
    public func validate() throws(PushError) {
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
        // A C string ends at NUL: the tools' argument vectors would run something other than what is shown.
        let texts =
            [token, userKey, title, body, sound, category, mediaUrl].compactMap { $0 }
            + (variables.map { Array($0.keys) + Array($0.values) } ?? [])
        if texts.contains(where: { $0.utf8.contains(0) }) {
            throw PushError("a push's text holds a NUL character (U+0000), which no payload or device tool keeps")
        }
        if variables?.keys.contains("") == true {
            throw PushError("a variable's key is empty: every payload key needs a name")
        }
        for reserved in ["aps", "_mId", "_dId"] where variables?[reserved] != nil {
            throw PushError("variable '\(reserved)' is set by the mock")
        }
        do throws(ApplicationError) {
            if let bundleId { try AppIdentifier.bundleID.check(bundleId, field: "bundleId") }
            if let androidPackage { try AppIdentifier.packageName.check(androidPackage, field: "androidPackage") }
        } catch {
            throw PushError(error.message)
        }
    }
}

/// How soon FCM delivers a message to an Android device (FCM's `AndroidConfig.priority`).
public enum AndroidPriority: String, Sendable, ClosedSet {
    /// Delivered at once while the device is awake; held while it dozes, to save the battery.
    case normal
    /// Delivered at once, waking a dozing device: for notifications the user sees.
    case high

    /// What a message gets when it names no priority: `high` for one that shows a notification, `normal` for
    /// a silent one (FCM's own default for a data message).
    public static func `default`(silent: Bool) -> Self { silent ? .normal : .high }
}

/// Why a push cannot be composed (answered 400, or 404 when no device matches).
public struct PushError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public let isNotFound: Bool
    public init(_ message: String, isNotFound: Bool = false) {
        self.message = message
        self.isNotFound = isNotFound
    }
    public var description: String { message }
}
