/// What sending composed pushes to real devices is configured with, as `GET /_mock/info` and the console
/// show it: never a path, key or id of a credential.
package struct SendingStatus: Sendable, Codable, Equatable {
    /// `sandbox` or `production` when APNs is configured.
    package var apns: String?
    /// The Firebase project when FCM is configured.
    package var fcm: String?
    /// The send allow-list's patterns; empty lets nothing through.
    package var allowList: [String]
    package var autoSend: Bool
}
