import CampaignMockSupport

/// What the mock needs to send through the real providers (`--apns-*`, `--fcm-*`; docs/push-on-device.md).
/// Only paths and ids: the keys themselves are read when the sender starts, and never shown or logged.
package struct ProviderSettings: Sendable, Equatable {
    /// APNs token-based authentication.
    package struct APNs: Sendable, Equatable {
        /// The `.p8` key (an EC P-256 key, PKCS#8 PEM) from the Apple developer account.
        package var key: Credential
        /// The key's 10-character id (the `kid` of each token).
        package var keyID: String
        /// The team id (the `iss` of each token).
        package var teamID: String
        package var environment: APNsEnvironment
        /// Where requests go: Apple's host for the environment unless set (a local fake in tests).
        package var url: String?

        package init(key: Credential, keyID: String, teamID: String, environment: APNsEnvironment, url: String? = nil) {
            self.key = key
            self.keyID = keyID
            self.teamID = teamID
            self.environment = environment
            self.url = url
        }

        /// `url`, or Apple's documented host for the environment.
        package var endpoint: String { url ?? environment.appleURL }
    }

    /// FCM HTTP v1 with a service account.
    package struct FCM: Sendable, Equatable {
        /// The service account's JSON key, from the Firebase console.
        package var serviceAccount: Credential
        /// Where `messages:send` goes: Google's host unless set (a local fake in tests).
        package var url: String?

        package init(serviceAccount: Credential, url: String? = nil) {
            self.serviceAccount = serviceAccount
            self.url = url
        }

        package var endpoint: String { url ?? "https://fcm.googleapis.com" }
    }

    package var apns: APNs?
    package var fcm: FCM?
    /// More CAs to trust for the providers' hosts (a company proxy, or a local fake's test CA).
    package var caFile: String?
    /// Which registered devices may be sent to; empty lets none through.
    package var allowList: SendAllowList
    /// Send every composed push right away (still through the allow-list).
    package var autoSend: Bool

    package init(
        apns: APNs? = nil, fcm: FCM? = nil, caFile: String? = nil, allowList: SendAllowList = SendAllowList(),
        autoSend: Bool = false
    ) {
        self.apns = apns
        self.fcm = fcm
        self.caFile = caFile
        self.allowList = allowList
        self.autoSend = autoSend
    }
}

/// Where a key comes from: a file, or the text of an environment variable (a CI secret). Messages name
/// the file or the variable, never the text.
package enum Credential: Sendable, Equatable, CustomStringConvertible {
    case file(path: String, setting: String)
    case environment(variable: String, text: String)

    /// The environment variables that carry a key's text rather than its path (environment only).
    package static let apnsKeyVariable = "CAMPAIGN_MOCK_APNS_KEY"
    package static let serviceAccountVariable = "CAMPAIGN_MOCK_FCM_SERVICE_ACCOUNT_JSON"

    /// The key's bytes, or nil when the file cannot be read.
    var bytes: [UInt8]? {
        switch self {
        case .file(let path, _): FileBytes.read(path)
        case .environment(_, let text): Array(text.utf8)
        }
    }

    /// `apnsKeyFile '/keys/AuthKey_X.p8'` or `CAMPAIGN_MOCK_APNS_KEY`, for messages.
    package var description: String {
        switch self {
        case .file(let path, let setting): "\(setting) '\(path)'"
        case .environment(let variable, _): variable
        }
    }
}

/// Which APNs a device token belongs to: an app built by Xcode for debugging gets sandbox tokens, an
/// App Store, TestFlight or ad-hoc build production ones.
package enum APNsEnvironment: String, Sendable, CaseIterable {
    case sandbox
    case production

    /// Apple's documented hosts (port 443).
    var appleURL: String {
        self == .sandbox ? "https://api.sandbox.push.apple.com" : "https://api.push.apple.com"
    }
}
