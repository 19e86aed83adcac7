package import CampaignMockModel

extension PayloadChecker {
    /// The fields of an FCM HTTP v1 `message`.
    private static let messageKeys = jsonNames([
        "name", "data", "notification", "android", "webpush", "apns", "fcm_options", "token", "topic", "condition",
    ])
    /// The fields of the request around the message.
    private static let requestKeys = jsonNames(["message", "validate_only"])
    private static let targetKeys = ["token", "topic", "condition"]
    /// `android.priority` as FCM reads it: the value (`high`) or the enum's name (`HIGH`).
    private static let androidPriorities = AndroidPriority.allCases.flatMap { [$0.rawValue, $0.rawValue.uppercased()] }

    /// The names FCM's JSON reads a field by: the proto field name (`fcm_options`) and its lowerCamelCase JSON
    /// name (`fcmOptions`).
    private static func jsonNames(_ fields: [String]) -> Set<String> {
        Set(
            fields.flatMap { field in
                let camel = field.split(separator: "_").enumerated().map { index, word in
                    index == 0 ? String(word) : word.prefix(1).uppercased() + word.dropFirst()
                }
                return [field, camel.joined()]
            })
    }

    /// A `data` key FCM reserves, in the words of its reference: `from`, `message_type`, or any key starting with
    /// `google` or `gcm`.
    private static func isReservedDataKey(_ key: String) -> Bool {
        key == "from" || key == "message_type" || key.hasPrefix("google") || key.hasPrefix("gcm")
    }

    /// Checks an FCM HTTP v1 request body (`{"message": {...}}`), as Campaign sends it: a data message.
    package static func fcm(_ body: JSONValue) -> PayloadCheck {
        var findings = FindingList()
        guard case .object(let message)? = body["message"] else {
            findings.error(
                .fcmMessageMissing, at: "message",
                "no `message` object: the FCM HTTP v1 API takes `{\"message\": {…}}` and refuses anything else")
            checkSDKKeys([:], at: "message.data", platform: .android, into: &findings)
            return findings.check
        }
        if case .object(let top) = body {
            for key in top.keys.sorted() where !requestKeys.contains(key) {
                findings.error(.fcmUnknownKey, at: key, "`\(key)` is not a field of the request: FCM refuses it")
            }
        }
        for key in message.keys.sorted() where !messageKeys.contains(key) {
            findings.error(
                .fcmUnknownKey, at: payloadPath("message", key),
                "`\(key)` is not a field of an FCM message: FCM refuses the message")
        }
        checkTarget(message, into: &findings)
        let data = checkData(message["data"], into: &findings)
        let notifications = [
            ("message.notification", message["notification"]),
            ("message.android.notification", message["android"]?["notification"]),
        ].filter { $0.1 != nil }
        checkAndroid(message["android"], notification: !notifications.isEmpty, into: &findings)
        for (path, _) in notifications {
            findings.warning(
                .fcmNotification, at: path,
                "a notification block: while the app is in the background Android shows it by itself and does not "
                    + "call the app's messaging service, so the Campaign SDK sends no receive hit (Campaign sends data "
                    + "messages)")
        }
        checkSDKKeys(data, at: "message.data", platform: .android, into: &findings)
        return findings.check
    }

    /// Exactly one of `token`, `topic` and `condition`, a string.
    private static func checkTarget(_ message: [String: JSONValue], into findings: inout FindingList) {
        let targets = targetKeys.filter { message[$0] != nil }
        guard targets.count == 1, let target = targets.first else {
            let found = targets.isEmpty ? "none" : targets.map { "`\($0)`" }.joined(separator: " and ")
            findings.error(
                .fcmTarget, at: "message",
                "the message needs exactly one of `token`, `topic` and `condition` (found \(found)): FCM refuses it")
            return
        }
        if message[target]?.string == nil {
            findings.error(
                .fcmTarget, at: payloadPath("message", target),
                "`\(target)` is \(message[target]!.kind), not a string: FCM refuses the message")
        }
    }

    /// `data`: string values, no reserved keys, within the size limit. Returns the data's fields.
    private static func checkData(_ data: JSONValue?, into findings: inout FindingList) -> [String: JSONValue] {
        guard let data else { return [:] }
        guard case .object(let fields) = data else {
            findings.error(.fcmDataType, at: "message.data", "`data` is \(data.kind), not an object: FCM refuses it")
            return [:]
        }
        for key in fields.keys.sorted() {
            let path = payloadPath("message.data", key)
            if let value = fields[key], value.string == nil {
                findings.error(
                    .fcmDataType, at: path,
                    "`\(key)` is \(value.kind): FCM takes only strings as data values and refuses the message")
            }
            if isReservedDataKey(key) {
                findings.error(
                    .fcmDataReservedKey, at: path,
                    "FCM reserves `\(key)` (`from`, `message_type` and keys starting with `google` or `gcm`) and "
                        + "refuses the message")
            }
        }
        checkSize(data, .fcmSize, at: "message.data", "the data", "FCM", "FCM refuses the message", into: &findings)
        return fields
    }

    /// `android.priority` (and what its absence means: FCM's default is HIGH for a message with a notification
    /// block, NORMAL for a data message) and `android.ttl`.
    private static func checkAndroid(_ android: JSONValue?, notification: Bool, into findings: inout FindingList) {
        switch android?["priority"] {
        case nil where !notification:
            findings.info(
                .fcmAndroidPriorityMissing, at: "message.android.priority",
                "no `android.priority`: FCM delivers a data message at normal priority, which a device in Doze "
                    + "receives late; a notification the user should see at once needs `high`")
        case let priority? where !androidPriorities.contains(priority.string ?? ""):
            findings.error(
                .fcmAndroidPriority, at: "message.android.priority",
                "`priority` is \(priority.shown), not `normal` or `high` (or `NORMAL`, `HIGH`): FCM refuses the message"
            )
        default:
            break
        }
        if let ttl = android?["ttl"], !isDuration(ttl.string ?? "") {
            findings.error(
                .fcmAndroidTTL, at: "message.android.ttl",
                "`ttl` is \(ttl.shown), not seconds ending in `s` (`3600s`, `0.5s`): FCM refuses the message"
            )
        }
    }

    /// A protobuf duration as JSON writes it: seconds, up to nine decimals, then `s`.
    static func isDuration(_ text: String) -> Bool {
        guard text.hasSuffix("s") else { return false }
        let parts = text.dropLast().split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = { (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }
        return digits(parts[0]) && (parts.count == 1 || (digits(parts[1]) && parts[1].count <= 9))
    }
}
