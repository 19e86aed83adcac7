import CampaignMockSystem
import Testing

@testable import CampaignMock
@testable import CampaignMockModel
@testable import CampaignMockPush

/// The allow-list that decides which registered devices a push may really be sent to.
@Suite struct SendAllowListTests {
    private let jane = SendAllowList.Device(userKey: "jane@example.com", token: "80f1a2b3", app: "shop-ios")

    private func list(_ patterns: String...) throws -> SendAllowList {
        SendAllowList(try patterns.map { text throws(SendAllowListError) in try SendAllowList.Pattern(parsing: text) })
    }

    /// Whether the list lets `device` through, trusted on this machine.
    private func allows(_ list: SendAllowList, _ device: SendAllowList.Device) -> Bool {
        list.verdict(device, trusted: true) == .allowed
    }

    @Test func anEmptyListLetsNothingThrough() {
        #expect(SendAllowList().verdict(jane, trusted: true) == .notListed)
    }

    @Test func aStarLetsEveryTrustedDeviceThrough() throws {
        #expect(allows(try list("*"), jane))
        #expect(allows(try list("*"), SendAllowList.Device(userKey: nil, token: "t", app: "a")))
    }

    @Test(arguments: [
        ("userKey:jane@example.com", true), ("userKey:*@example.com", true), ("userKey:jane@*", true),
        ("userKey:*", true), ("userKey:j*@*.com", true), ("userKey:*example*", true), ("userKey:*@example.org", false),
        ("userKey:Jane@example.com", false), ("userKey:jane", false), ("token:80f1*", true), ("token:80f1", false),
        ("token:*b3", true), ("app:shop-*", true), ("app:shop-android", false), ("app:*-ios", true),
        ("userKey:jane*example.com*", true), ("userKey:*a*a*", true), ("userKey:*a*a*a*", false),
    ])
    func aPatternTestsItsField(_ pattern: String, _ allowed: Bool) throws {
        #expect(allows(try list(pattern), jane) == allowed)
    }

    /// A device registers itself under any userKey and app it likes: only a `token:` pattern, written on
    /// this machine, lets an untrusted device through; the others name the pattern that needs the trust.
    @Test func onlyATokenPatternLetsAnUntrustedDeviceThrough() throws {
        #expect(try list("token:80f1*").verdict(jane, trusted: false) == .allowed)
        for pattern in ["userKey:jane@example.com", "app:shop-ios", "*"] {
            let parsed = try SendAllowList.Pattern(parsing: pattern)
            #expect(try list(pattern).verdict(jane, trusted: false) == .needsTrust(parsed))
            #expect(try list(pattern).verdict(jane, trusted: true) == .allowed)
        }
        #expect(try list("userKey:bob@*", "token:80f1a2b3").verdict(jane, trusted: false) == .allowed)
        #expect(try list("userKey:bob@*").verdict(jane, trusted: true) == .notListed)
    }

    @Test func aDeviceWithoutUserKeyMatchesNoUserKeyPattern() throws {
        let anonymous = SendAllowList.Device(userKey: nil, token: "80f1", app: "shop-ios")
        #expect(!allows(try list("userKey:*"), anonymous))
        #expect(allows(try list("userKey:*", "app:shop-ios"), anonymous))
    }

    @Test(arguments: ["user:jane", "jane@example.com", "token:", "*foo", "app"])
    func aPatternOfNoKnownFormIsRefusedWithTheForms(_ text: String) {
        #expect(throws: SendAllowListError.self) { try SendAllowList.Pattern(parsing: text) }
    }

    @Test func theSettingTakesAListAndNamesABadPattern() throws {
        let configuration = try Configuration.resolve(
            flags: ["sendAllow": "userKey:*@example.com\napp:shop-*"], environment: [:], configFile: nil)
        #expect(configuration.sending.allowList.patterns.map(\.description) == ["userKey:*@example.com", "app:shop-*"])
        #expect(throws: ConfigurationError.self) {
            try Configuration.resolve(flags: ["sendAllow": "user:jane"], environment: [:], configFile: nil)
        }
    }

    @Test func apnsSettingsGoTogetherAndFCMStandsAlone() throws {
        #expect(throws: ConfigurationError.self) {
            try Configuration.resolve(flags: ["apnsKeyFile": "/k.p8"], environment: [:], configFile: nil)
        }
        let apns = try Configuration.resolve(
            flags: ["apnsKeyFile": "/k.p8", "apnsKeyId": "ABC123DEFG", "apnsTeamId": "TEAM123456"],
            environment: ["CAMPAIGN_MOCK_APNS_ENVIRONMENT": "production"], configFile: nil
        ).providerSettings()
        #expect(apns.apns?.endpoint == "https://api.push.apple.com")
        #expect(apns.fcm == nil && !apns.autoSend)
        let fcm = try Configuration.resolve(
            flags: ["fcmServiceAccount": "/sa.json", "autoSend": "true"], environment: [:], configFile: nil
        ).providerSettings()
        #expect(fcm.apns == nil && fcm.fcm?.endpoint == "https://fcm.googleapis.com" && fcm.autoSend)
        #expect(throws: ConfigurationError.self) {
            try Configuration.resolve(flags: ["apnsKeyId": "short"], environment: [:], configFile: nil)
        }
        #expect(throws: ConfigurationError.self) {
            try Configuration.resolve(flags: ["apnsUrl": "http://plain"], environment: [:], configFile: nil)
        }
    }
}
