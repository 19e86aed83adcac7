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
        case "InvalidProviderToken":
            return
                "APNs could not verify the provider token. If this machine's clock runs ahead, the token says it was "
                + "signed in the future and APNs refuses it: check the clock first (date -u). Otherwise the key id, "
                + "the team id and the .p8 key do not belong together, or the key was revoked in the developer "
                + "account: check apnsKeyId and apnsTeamId."
        case "MissingProviderToken":
            return "APNs got no provider token (no authorization header): a proxy between may have removed it."
        case "BadEnvironmentKeyIdInToken", "BadEnvironmentKeyInToken":
            return
                "The key is not enabled for the \(environment.rawValue) environment: a key can be restricted to "
                + "sandbox or production in the developer account (Certificates, Identifiers & Profiles, Keys). Enable "
                + "it for \(environment.rawValue), or use a key that is, or send to the environment the key is for "
                + "(apnsEnvironment \(other), with a token of an app built for it)."
        case "UnrelatedKeyIdInToken":
            return
                "APNs does not relate the key to '\(topic)' or to this connection: a key restricted to other apps' "
                + "topics, or another key than the one the connection started with. Use a key enabled for this "
                + "bundle id (Certificates, Identifiers & Profiles, Keys), and restart the mock after changing it."
        case "BadCertificate", "BadCertificateEnvironment":
            return
                "APNs answered about a client certificate (\(reason ?? "")), but the mock authenticates with a "
                + "token, not a certificate: something between this machine and APNs (a proxy?) answers for it."
        case "ExpiredProviderToken":
            return
                "APNs found the provider token older than an hour. This machine's clock is probably wrong: the token "
                + "carries the time it was signed."
        case "TooManyProviderTokenUpdates":
            return "APNs saw new provider tokens too often. Wait 20 minutes; the mock keeps each token for 30."
        case "PayloadTooLarge":
            return "The payload is over APNs' limit (4096 bytes for a notification)."
        case "PayloadEmpty", "BadPriority", "BadExpirationDate", "BadCollapseId", "InvalidPushType", "BadMessageId",
            "DuplicateHeaders", "MissingDeviceToken", "BadPath", "MethodNotAllowed":
            return "APNs found a header or the payload malformed (\(reason ?? "")); the payload check tells more."
        case "IdleTimeout":
            return "APNs closed the connection as idle before the notification went out. Send again."
        case "TooManyRequests":
            return
                "Too many notifications to this device in a short time: APNs throttles it. The mock does not send "
                + "again by itself; wait a while, then send again."
        case "Forbidden":
            return "APNs says this key may not send (Forbidden): check the key's APNs service in the developer account."
        case "InternalServerError", "ServiceUnavailable", "Shutdown":
            return
                "APNs had a problem of its own (\(reason ?? "")). The mock does not send again by itself; send again "
                + "in a moment."
        default:
            return "APNs refused the notification with \(status)\(reason.map { " \($0)" } ?? "")."
        }
    }

    /// An FCM answer (status, and the error code when refused).
    ///
    /// - Parameter retryAfter: the answer's `Retry-After` (seconds, or an HTTP date), when it had one.
    static func fcm(status: Int, reason: String?, message: String?, project: String, retryAfter: String? = nil)
        -> String
    {
        if status == 200 { return "FCM accepted the message for project \(project)." }
        let detail = message.map { " FCM said: \($0)" } ?? ""
        let wait =
            retryAfter.map { after in
                Int(after).map { " FCM asks to wait \($0) s (Retry-After) before sending again." }
                    ?? " FCM asks to wait until \(after) (Retry-After) before sending again."
            } ?? " Wait a moment, then send again."
        let again = " The mock does not send again by itself.\(wait)"
        switch reason {
        case "UNREGISTERED", "NOT_FOUND":
            return
                "The token is no longer valid: the app was uninstalled, its data cleared, or it got a new token. "
                + "Start the app again so it registers the new one."
        case "INVALID_ARGUMENT":
            return
                "FCM found the message or the token invalid: a token made up for a test, cut short or copied with "
                + "extra characters answers so.\(detail)"
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
            return
                "FCM could not authenticate with APNs or Web Push for this token's app: the token is of an iOS or web "
                + "app, and the APNs key or certificate uploaded to the Firebase project (Project settings, Cloud "
                + "Messaging) is missing or wrong. The service account's access token is fine.\(detail)"
        case "QUOTA_EXCEEDED":
            return "Too many messages: the project's or this device's quota is used up.\(again)"
        case "UNAVAILABLE", "INTERNAL":
            return "FCM had a problem of its own (\(reason ?? "")).\(again)"
        default:
            return "FCM refused the message with \(status)\(reason.map { " \($0)" } ?? "").\(detail)"
        }
    }
}
