package import CampaignMockModel

/// What a device token and an APNs topic must look like before they go into a provider request: the
/// token into APNs' `:path` (or an FCM message), the topic into `apns-topic`. Anything else (a `/`, a
/// space, a line break) could change the request, and is never what the provider issued.
package enum ProviderInput {
    /// What some push types add to the app's bundle id in `apns-topic` (Apple, "Sending notification
    /// requests to APNs"): `com.example.app.voip`, …. Each keeps the bundle id's form, so the one rule
    /// takes them all.
    package static let apnsTopicSuffixes = [
        ".voip", ".complication", ".pushkit.fileprovider", ".location-query", ".push-type.liveactivity", ".voip-ptt",
    ]

    /// Why `topic` cannot be an `apns-topic`, or nil: it must be a bundle id (`com.example.app`), alone or
    /// followed by one of ``apnsTopicSuffixes``.
    package static func topicProblem(_ topic: String) -> String? {
        guard !AppIdentifier.bundleID.accepts(topic) else { return nil }
        return
            "apnsTopic '\(topic.prefix(64))' is not a bundle id such as com.example.app (dot-separated letters, "
            + "digits and '-'), alone or followed by "
            + apnsTopicSuffixes.joined(separator: ", ")
    }

    /// The longest token taken: APNs tokens are 32 bytes (64 hex digits) today, FCM's about 160 characters;
    /// both may grow, so the bound is generous.
    static let maximumTokenLength = 1024

    /// Why `token` is not a device token of `provider`, or nil. An APNs token is hexadecimal (an even
    /// number of digits, as the app's `deviceToken` bytes are written); an FCM registration token is made
    /// of letters, digits, `-`, `_` and `:`.
    package static func tokenProblem(_ token: String, for provider: PushProvider) -> String? {
        let bytes = token.utf8
        guard !bytes.isEmpty, bytes.count <= maximumTokenLength else {
            return "the token must be 1 to \(maximumTokenLength) characters"
        }
        switch provider {
        case .apns:
            guard bytes.count % 2 == 0, bytes.allSatisfy(isHexDigit) else {
                return
                    "'\(token.prefix(64))' is not an APNs device token: APNs tokens are hexadecimal digits (64 for "
                    + "the 32 bytes of today's tokens), as the app writes its deviceToken"
            }
        case .fcm:
            guard
                bytes.allSatisfy({
                    isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ":")
                })
            else {
                return
                    "'\(token.prefix(64))' is not an FCM registration token: those are letters, digits, '-', '_' "
                    + "and ':'"
            }
        }
        return nil
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
