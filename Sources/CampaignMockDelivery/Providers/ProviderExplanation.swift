/// What a provider answered for one message, in the provider's terms and in words.
struct ProviderAnswer {
    var status: Int
    /// APNs `reason` or FCM `errorCode` (else the error's `status`) of a refusal.
    var reason: String?
    /// APNs `apns-id`, or the FCM message `name`, of an accepted message.
    var providerId: String?
    var explanation: String

    var isAccepted: Bool { status == 200 }
}

/// Turns a provider's answer into words for the console and the API: what the code means, the likely
/// cause when a developer sends from a laptop, and what to do.
enum ProviderExplanation {
    /// An APNs answer (status, and `reason` when refused).
    static func apns(status: Int, reason: String?, environment: APNsEnvironment, topic: String) -> String {
        if status == 200 { return "APNs (\(environment.rawValue)) accepted the notification for \(topic)." }
        let other = environment == .sandbox ? "production" : "sandbox"
        switch reason {
        case "BadDeviceToken":
            return
                "APNs \(environment.rawValue) does not know this token. Most often it was made for the other "
                + "environment: an app run from Xcode has sandbox tokens, TestFlight, App Store and ad-hoc builds "
                + "production ones (\(other) token sent to \(environment.rawValue)? set apnsEnvironment). "
                + "A token of another app, or one made up for a test, answers the same."
        case "Unregistered", "ExpiredToken":
            return
                "The token is no longer valid for \(topic): the app was removed from the device, or the device "
                + "stopped using this token. Start the app again so it registers a new one."
        case "DeviceTokenNotForTopic":
            return
                "The token belongs to another app than \(topic). Check the application's bundleId: it must be the "
                + "bundle id of the app that registered this token."
        case "TopicDisallowed", "BadTopic", "MissingTopic":
            return
                "APNs does not accept the topic '\(topic)' (\(reason ?? "")): the key's team must own an app with "
                + "this bundle id. Check the application's bundleId."
        case "InvalidProviderToken", "MissingProviderToken":
            return
                "APNs refused the provider token: the key id, the team id and the .p8 key do not belong together, "
                + "or the key was revoked in the developer account. Check apnsKeyId and apnsTeamId."
        case "ExpiredProviderToken":
            return
                "APNs found the provider token older than an hour. This machine's clock is probably wrong: the token "
                + "carries the time it was signed."
        case "TooManyProviderTokenUpdates":
            return "APNs saw new provider tokens too often. Wait 20 minutes; the mock keeps each token for 30."
        case "PayloadTooLarge":
            return "The payload is over APNs' limit (4096 bytes for a notification)."
        case "PayloadEmpty", "BadPriority", "BadExpirationDate", "BadCollapseId", "InvalidPushType", "BadMessageId":
            return "APNs found a header or the payload malformed (\(reason ?? "")); the payload check tells more."
        case "TooManyRequests":
            return "Too many notifications to this device in a short time: APNs throttles it. Wait, then send again."
        case "Forbidden":
            return "APNs says this key may not send (Forbidden): check the key's APNs service in the developer account."
        case "InternalServerError", "ServiceUnavailable", "Shutdown":
            return "APNs had a problem of its own (\(reason ?? "")). Send again in a moment."
        default:
            return "APNs refused the notification with \(status)\(reason.map { " \($0)" } ?? "")."
        }
    }

    /// An FCM answer (status, and the error code when refused).
    static func fcm(status: Int, reason: String?, message: String?, project: String) -> String {
        if status == 200 { return "FCM accepted the message for project \(project)." }
        let detail = message.map { " FCM said: \($0)" } ?? ""
        switch reason {
        case "UNREGISTERED", "NOT_FOUND":
            return
                "The token is no longer valid: the app was uninstalled, its data cleared, or it got a new token. "
                + "Start the app again so it registers the new one."
        case "INVALID_ARGUMENT":
            return
                "FCM found the message or the token invalid. A token of another Firebase project, or one made up for "
                + "a test, answers the same.\(detail)"
        case "SENDER_ID_MISMATCH":
            return
                "The token belongs to another Firebase project than '\(project)'. Use the service account of the project "
                + "in the app's google-services.json."
        case "PERMISSION_DENIED":
            return
                "The service account may not send in '\(project)': give it a role with cloudmessaging.messages.create "
                + "(Firebase Cloud Messaging API Admin) and enable the FCM API in the project.\(detail)"
        case "UNAUTHENTICATED":
            return "FCM refused the access token, even a fresh one.\(detail)"
        case "THIRD_PARTY_AUTH_ERROR":
            return "FCM could not authenticate with APNs or Web Push for this token's app.\(detail)"
        case "QUOTA_EXCEEDED":
            return "Too many messages: the project's or this device's quota is used up. Wait, then send again."
        case "UNAVAILABLE", "INTERNAL":
            return "FCM had a problem of its own (\(reason ?? "")). Send again in a moment."
        default:
            return "FCM refused the message with \(status)\(reason.map { " \($0)" } ?? "").\(detail)"
        }
    }
}
