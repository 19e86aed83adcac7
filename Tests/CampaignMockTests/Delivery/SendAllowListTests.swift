import Testing

@testable import CampaignMock
@testable import CampaignMockDelivery
@testable import CampaignMockModel

/// The allow-list that decides which registered devices a push may really be sent to.
@Suite struct SendAllowListTests {
    private let jane = SendAllowList.Device(userKey: "jane@example.com", token: "80f1a2b3", app: "shop-ios")

    private func list(_ patterns: String...) throws -> SendAllowList {
        SendAllowList(try patterns.map { text throws(SendAllowListError) in try SendAllowList.Pattern(parsing: text) })
    }

    @Test func anEmptyListLetsNothingThrough() {
        #expect(!SendAllowList().allows(jane))
    }

    @Test func aStarLetsEveryDeviceThrough() throws {
        #expect(try list("*").allows(jane))
        #expect(try list("*").allows(SendAllowList.Device(userKey: nil, token: "t", app: "a")))
    }

    @Test(arguments: [
        ("userKey:jane@example.com", true), ("userKey:*@example.com", true), ("userKey:jane@*", true),
        ("userKey:*", true), ("userKey:j*@*.com", true), ("userKey:*example*", true), ("userKey:*@example.org", false),
        ("userKey:Jane@example.com", false), ("userKey:jane", false), ("token:80f1*", true), ("token:80f1", false),
        ("token:*b3", true), ("app:shop-*", true), ("app:shop-android", false), ("app:*-ios", true),
        ("userKey:jane*example.com*", true), ("userKey:*a*a*", true), ("userKey:*a*a*a*", false),
    ])
    func aPatternTestsItsField(_ pattern: String, _ allowed: Bool) throws {
        #expect(try list(pattern).allows(jane) == allowed)
    }

    @Test func aDeviceWithoutUserKeyMatchesNoUserKeyPattern() throws {
        let anonymous = SendAllowList.Device(userKey: nil, token: "80f1", app: "shop-ios")
        #expect(!(try list("userKey:*").allows(anonymous)))
        #expect(try list("userKey:*", "app:shop-ios").allows(anonymous))
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
