/// The platform of an application; the registration endpoint must match it.
public enum Platform: String, Sendable, ClosedSet {
    case ios
    case android

    /// `an iOS` / `an Android`, for messages.
    public var withArticle: String { self == .ios ? "an iOS" : "an Android" }
}

/// A mobile application known to the mock: what the SDK names with `mobileAppUuid`.
public struct Application: Sendable, Codable, Equatable {
    public var name: String
    public var platform: Platform
    /// The integration key (`nms:mobileApp/@uuid`), sent by the SDK as `mobileAppUuid`.
    public var integrationKey: String
    /// A disabled application refuses registrations with `403`.
    public var enabled: Bool
    /// iOS: the app's bundle id, the APNs topic and the target of `xcrun simctl push`.
    public var bundleId: String?
    /// Android: the app's package name, the target of the emulator's broadcast.
    public var packageName: String?

    public init(
        name: String, platform: Platform, integrationKey: String, enabled: Bool = true, bundleId: String? = nil,
        packageName: String? = nil
    ) {
        self.name = name
        self.platform = platform
        self.integrationKey = integrationKey
        self.enabled = enabled
        self.bundleId = bundleId
        self.packageName = packageName
    }

    /// The pair started when no application is configured; the keys are documented in the README and docs/configuration.md.
    public static let demo: [Application] = [
        Application(name: "Demo iOS app", platform: .ios, integrationKey: "campaign-mock-demo-ios"),
        Application(name: "Demo Android app", platform: .android, integrationKey: "campaign-mock-demo-android"),
    ]

}
