/// What the payload check found in an APNs payload or an FCM HTTP v1 message (`POST /_mock/push/check`, and
/// `check` of every composed message): the platform's rules and what the Campaign SDKs read (docs/push.md).
public struct PayloadCheck: Sendable, Codable, Equatable {
    public enum Severity: String, Sendable, ClosedSet {
        /// The platform refuses the payload, the device drops it, or the SDK does not track it.
        case error
        /// Delivered, but not the way it looks: something is ignored or behaves unexpectedly.
        case warning
        /// Worth knowing when sending it for real.
        case info
    }

    /// The stable id of each rule, as a finding names it.
    public enum Rule: String, Sendable, ClosedSet {
        case apnsEmpty = "apns.empty"
        case apnsSize = "apns.size"
        case apnsMediaWithoutExtension = "apns.media.no-extension"
        case apsMissing = "aps.missing"
        case apsType = "aps.type"
        case apsUnknownKey = "aps.unknown-key"
        case apsNothingToShow = "aps.nothing-to-show"
        case apsAlertType = "aps.alert.type"
        case apsAlertUnknownKey = "aps.alert.unknown-key"
        case apsBadgeType = "aps.badge.type"
        case apsSoundType = "aps.sound.type"
        case apsFlagValue = "aps.flag.value"
        case apsStringType = "aps.string.type"
        case apsInterruptionLevel = "aps.interruption-level.value"
        case apsRelevanceScore = "aps.relevance-score.value"
        case apsBackground = "aps.background"
        case apsBackgroundWithAlert = "aps.background.with-alert"
        case apsMutableContentWithoutAlert = "aps.mutable-content.no-alert"
        case fcmMessageMissing = "fcm.message.missing"
        case fcmUnknownKey = "fcm.message.unknown-key"
        case fcmTarget = "fcm.target"
        case fcmDataType = "fcm.data.type"
        case fcmDataReservedKey = "fcm.data.reserved-key"
        case fcmSize = "fcm.size"
        case fcmAndroidPriority = "fcm.android.priority"
        case fcmAndroidPriorityMissing = "fcm.android.priority.missing"
        case fcmAndroidTTL = "fcm.android.ttl"
        case fcmNotification = "fcm.notification"
        case sdkMessageIDMissing = "sdk.mId.missing"
        case sdkMessageIDType = "sdk.mId.type"
        case sdkMessageIDFormat = "sdk.mId.format"
        case sdkMessageIDLow32Bits = "sdk.mId.low-32-bits"
        case sdkDeliveryIDMissing = "sdk.dId.missing"
        case sdkDeliveryIDType = "sdk.dId.type"
        case sdkDeliveryIDFormat = "sdk.dId.format"
        case sdkDeliveryIDHex = "sdk.dId.hex"
        case sdkMediaURL = "sdk.media.url"
        case sdkLinkURI = "sdk.link.uri"

        /// A rule on `_mId` or `_dId`: when one of these fails with an error, the SDK sends no tracking hit.
        public var isTracking: Bool { rawValue.hasPrefix("sdk.mId.") || rawValue.hasPrefix("sdk.dId.") }
    }

    public struct Finding: Sendable, Codable, Equatable {
        public var severity: Severity
        public var rule: Rule
        /// Where in the payload, dotted (`aps.badge`, `message.data._mId`); empty for the whole payload.
        public var path: String
        /// What the device, the platform or the SDK would do, in words.
        public var message: String

        public init(_ severity: Severity, _ rule: Rule, path: String, _ message: String) {
            self.severity = severity
            self.rule = rule
            self.path = path
            self.message = message
        }
    }

    public var errors: Int
    public var warnings: Int
    /// Whether the SDK would send its receive and open hits for this push (no error on `_mId` or `_dId`).
    public var tracked: Bool
    /// Errors first, then warnings, then information; in the order found within each.
    public var findings: [Finding]

    /// The counts and `tracked` follow from the findings.
    public init(findings: [Finding]) {
        let order: [Severity] = [.error, .warning, .info]
        self.findings = order.flatMap { severity in findings.filter { $0.severity == severity } }
        errors = findings.count { $0.severity == .error }
        warnings = findings.count { $0.severity == .warning }
        tracked = !findings.contains { $0.severity == .error && $0.rule.isTracking }
    }
}

extension PayloadCheck {
    /// `POST /_mock/push/check`: exactly one payload, an APNs payload or an FCM HTTP v1 request body.
    public struct Request: Sendable, Codable, Equatable {
        public var apns: JSONValue?
        /// `{"message": {...}}`, as `fcm` of a composed message.
        public var fcm: JSONValue?

        public init(apns: JSONValue? = nil, fcm: JSONValue? = nil) {
            self.apns = apns
            self.fcm = fcm
        }

        /// The payload to check and its platform; the error names what is wrong.
        public func payload() throws(PushError) -> (platform: Platform, payload: JSONValue) {
            switch (apns, fcm) {
            case (let payload?, nil): return try (.ios, Self.object(payload, "apns"))
            case (nil, let payload?): return try (.android, Self.object(payload, "fcm"))
            case (.some, .some): throw PushError("give apns or fcm, not both")
            case (nil, nil): throw PushError("give apns (an APNs payload) or fcm (an FCM HTTP v1 request body)")
            }
        }

        private static func object(_ payload: JSONValue, _ field: String) throws(PushError) -> JSONValue {
            guard case .object = payload else { throw PushError("field '\(field)' must be a JSON object") }
            return payload
        }
    }
}
