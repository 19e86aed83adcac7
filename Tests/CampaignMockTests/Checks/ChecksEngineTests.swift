import CampaignMockChecks
import CampaignMockModel
import Foundation
import Testing

@testable import CampaignMockChecks

/// Each rule of the integration checks (docs/checks.md) over traffic shaped as the SDKs send it, and the
/// correct integrations it must stay silent on. The clock is the observations' own times plus
/// ``ChecksEngine/advance(to:)``: nothing waits.
@Suite struct ChecksEngineTests {
    static let second: Int64 = 1_000_000
    static let start: Int64 = 1_790_000_000 * 1_000_000
    /// The tokens of the SDKs' own tests (docs/protocol.md §3.5), and an APNs token as Apple issues them.
    static let iosToken = "70757368546f6b656e"
    static let apnsToken = "6e65772d6170706c652d746f6b656e2d6578616d706c652d33322d6279746573"
    static let fcmToken = "cXJ0eV9pbnN0YW5jZQ:APA91bH3xzyPq0example-token_with-dashes"

    var engine = ChecksEngine()

    // MARK: - Traffic as the SDKs send it

    static func registration(
        _ app: String, _ platform: Platform, token: String, userKey: String = "user@email.com",
        params: [AdditionalParam] = [], identical: Bool = false, at: Int64 = start, requestId: Int64? = 1
    ) -> CheckObservation {
        .registered(
            CheckObservation.Registration(
                app: app, platform: platform, token: token, userKey: userKey, params: params, identical: identical,
                at: at, requestId: requestId))
    }

    /// A message as the composer makes it: an Android data message, or an iOS push that shows an alert
    /// (`contentAvailable` adds `content-available: 1`) or a silent one.
    static func composed(
        _ id: String, _ platform: Platform, token: String, app: String = "app", contentAvailable: Bool = false,
        silent: Bool = false, at: Int64 = start
    ) -> CheckObservation {
        let receive: ReceiveTracking =
            platform == .android || contentAvailable || silent ? .always : .foregroundOrExtension
        return .composed(
            CheckObservation.ComposedMessageFacts(
                messageId: id, deliveryId: "7a001", app: app, platform: platform, token: token, receive: receive,
                silent: silent, at: at))
    }

    static let androidAgent = "Mozilla/5.0 (Linux; U; Android 14; en-US; Pixel 8 Build/AP1A)"
    static let iosAgent = "Mozilla/5.0 (iPhone; CPU OS 17_0 like Mac OS X; en_US)"

    static func hit(
        _ tag: Int, message: String, token: String, app: String = "app", delivery: String = "7a001",
        agent: String? = nil, at: Int64, requestId: Int64 = 9
    ) -> CheckObservation {
        .hit(
            CheckObservation.Hit(
                kind: TrackingEvent.Kind(tag: tag)!, trackingId: "h\(message),\(delivery)", deliveryId: delivery,
                link: TrackingEvent.Link(
                    messageId: message, deliveryId: "7a001", registrationToken: token, integrationKey: app),
                userAgent: agent, at: at, requestId: requestId))
    }

    mutating func run(_ observations: CheckObservation...) -> [CheckChange] {
        observations.flatMap { engine.observe($0) }
    }

    func findings(_ rule: CheckRule) -> [CheckFinding] {
        engine.report().findings.filter { $0.rule == rule.rawValue }
    }

    // MARK: - open-without-receive

    @Test mutating func anAndroidDataMessageOpenedWithoutReceiveIsAnError() {
        _ = run(
            Self.composed("1000001", .android, token: "testToken"),
            Self.hit(
                2, message: "1000001", token: "testToken", agent: Self.androidAgent, at: Self.start + 5 * Self.second))
        #expect(engine.advance(to: Self.start + 14 * Self.second).isEmpty, "the grace period is not over")
        let changes = engine.advance(to: Self.start + 15 * Self.second)
        #expect(changes.map(\.change) == [.appeared])
        let finding = try! #require(findings(.openWithoutReceive).first)
        #expect(finding.severity == .error)
        #expect(finding.registrationToken == "testToken" && finding.messageId == "1000001")
        #expect(finding.message.contains("onMessageReceived"))
        #expect(finding.fix.contains("notifyReceive") && finding.fix.contains("trackNotificationReceive"))
        #expect(finding.evidence.requestIds == [9])
        #expect(finding.doc == "docs/checks.md#open-without-receive")
    }

    @Test mutating func receiveThenOpenIsSilent() {
        _ = run(
            Self.composed("1000001", .android, token: "testToken"),
            Self.hit(1, message: "1000001", token: "testToken", at: Self.start + Self.second),
            Self.hit(2, message: "1000001", token: "testToken", at: Self.start + 5 * Self.second))
        _ = engine.advance(to: Self.start + 3600 * Self.second)
        #expect(engine.report().findings.isEmpty)
    }

    @Test mutating func aReceiveWithinTheGraceAfterTheOpenIsSilent() {
        _ = run(
            Self.composed("1000001", .android, token: "testToken"),
            Self.hit(2, message: "1000001", token: "testToken", at: Self.start + 5 * Self.second),
            Self.hit(1, message: "1000001", token: "testToken", at: Self.start + 7 * Self.second))
        _ = engine.advance(to: Self.start + 3600 * Self.second)
        #expect(engine.report().findings.isEmpty)
    }

    @Test mutating func aVisibleIOSPushOpenedFromTheBackgroundIsOnlyInformation() {
        _ = run(
            Self.composed("1000001", .ios, token: Self.apnsToken),
            Self.hit(2, message: "1000001", token: Self.apnsToken, agent: Self.iosAgent, at: Self.start + Self.second))
        _ = engine.advance(to: Self.start + 3600 * Self.second)
        let finding = try! #require(findings(.openWithoutReceive).first)
        #expect(finding.severity == .info)
        #expect(finding.message.contains("notification service extension"))
        #expect(engine.report(ChecksEngine.Filter(minimum: .warning)).findings.isEmpty)
    }

    @Test mutating func anIOSPushWithContentAvailableOpenedWithoutReceiveIsAnError() {
        _ = run(
            Self.composed("1000001", .ios, token: Self.apnsToken, contentAvailable: true),
            Self.hit(2, message: "1000001", token: Self.apnsToken, at: Self.start + Self.second))
        _ = engine.advance(to: Self.start + 3600 * Self.second)
        #expect(findings(.openWithoutReceive).map(\.severity) == [.error])
        #expect(findings(.openWithoutReceive).first?.fix.contains("didReceiveRemoteNotification") == true)
    }

    @Test mutating func aLateReceiveClearsTheFinding() {
        _ = run(
            Self.composed("1000001", .android, token: "testToken"),
            Self.hit(2, message: "1000001", token: "testToken", at: Self.start))
        _ = engine.advance(to: Self.start + 60 * Self.second)
        #expect(findings(.openWithoutReceive).count == 1)
        let changes = run(Self.hit(1, message: "1000001", token: "testToken", at: Self.start + 61 * Self.second))
        #expect(changes.map(\.change) == [.cleared])
        #expect(engine.report().findings.isEmpty)
    }

    @Test mutating func aMessageComposedBeforeTheServerStartedIsNotJudged() {
        _ = run(Self.hit(2, message: "1000001", token: "testToken", at: Self.start))
        _ = engine.advance(to: Self.start + 3600 * Self.second)
        #expect(engine.report().findings.isEmpty)
    }

    // MARK: - silent-push-opened

    @Test mutating func anOpenOfASilentPushIsAWarning() {
        _ = run(
            Self.composed("1000001", .ios, token: Self.apnsToken, silent: true),
            Self.hit(1, message: "1000001", token: Self.apnsToken, at: Self.start + Self.second),
            Self.hit(2, message: "1000001", token: Self.apnsToken, at: Self.start + 2 * Self.second))
        _ = engine.advance(to: Self.start + 3600 * Self.second)
        #expect(engine.report().findings.map(\.rule) == ["silent-push-opened"])
        #expect(findings(.silentPushOpened).first?.severity == .warning)
    }

    @Test mutating func aSilentPushReceivedAndNotOpenedIsSilent() {
        _ = run(
            Self.composed("1000001", .android, token: "testToken", silent: true),
            Self.hit(1, message: "1000001", token: "testToken", at: Self.start + Self.second))
        _ = engine.advance(to: Self.start + 3600 * Self.second)
        #expect(engine.report().findings.isEmpty)
    }

    // MARK: - duplicate-hit

    @Test mutating func twoReceivesOfOneMessageAreAWarning() {
        _ = run(
            Self.composed("1000001", .ios, token: Self.apnsToken, contentAvailable: true),
            Self.hit(1, message: "1000001", token: Self.apnsToken, at: Self.start + Self.second, requestId: 3),
            Self.hit(1, message: "1000001", token: Self.apnsToken, at: Self.start + Self.second, requestId: 4))
        let finding = try! #require(findings(.duplicateHit).first)
        #expect(finding.severity == .warning && finding.count == 1)
        #expect(finding.evidence.requestIds == [4])
        #expect(finding.fix.contains("willPresent"))
        _ = run(Self.hit(1, message: "1000001", token: Self.apnsToken, at: Self.start + 2 * Self.second))
        #expect(findings(.duplicateHit).first?.count == 2)
    }

    @Test mutating func oneReceiveAndOneOpenPerMessageAreSilent() {
        for (index, id) in ["1000001", "1000002"].enumerated() {
            let at = Self.start + Int64(index) * 10 * Self.second
            _ = run(
                Self.composed(id, .android, token: "testToken", at: at),
                Self.hit(1, message: id, token: "testToken", at: at + 1),
                Self.hit(2, message: id, token: "testToken", at: at + 2))
        }
        _ = engine.advance(to: Self.start + 3600 * Self.second)
        #expect(engine.report().findings.isEmpty)
    }

    // MARK: - unknown-message

    @Test mutating func aHitForAMessageNeverComposedIsAWarning() {
        // docs/protocol.md §4.4: the SDK's own vector, for a message this mock did not issue.
        _ = run(
            .hit(
                CheckObservation.Hit(
                    kind: .receive, trackingId: "h3039,testDeliveryId", deliveryId: "testDeliveryId", link: nil,
                    userAgent: nil, at: Self.start, requestId: 5)))
        let finding = try! #require(findings(.unknownMessage).first)
        #expect(finding.severity == .warning)
        #expect(finding.messageId == "3039" && finding.app == nil)
        #expect(finding.message.contains("testDeliveryId"))
    }

    @Test mutating func aHitFromTheOtherPlatformsSDKIsAWarning() {
        _ = run(
            Self.composed("1000001", .ios, token: Self.apnsToken),
            Self.hit(1, message: "1000001", token: Self.apnsToken, agent: Self.androidAgent, at: Self.start + 1))
        #expect(findings(.unknownMessage).first?.message.contains("an Android SDK") == true)
    }

    @Test mutating func aHitNamingAnotherDeliveryIsAWarning() {
        _ = run(
            Self.composed("1000001", .android, token: "testToken"),
            Self.hit(1, message: "1000001", token: "testToken", delivery: "7a009", at: Self.start + 1))
        #expect(findings(.unknownMessage).first?.message.contains("7a009") == true)
    }

    @Test mutating func hitsFromTheRightSDKAreSilent() {
        _ = run(
            Self.composed("1000001", .ios, token: Self.apnsToken, contentAvailable: true),
            Self.hit(1, message: "1000001", token: Self.apnsToken, agent: "App/1 CFNetwork/1410 Darwin/22.6.0", at: 1),
            Self.composed("1000002", .android, token: "testToken"),
            Self.hit(1, message: "1000002", token: "testToken", agent: "Dalvik/2.1.0 (Linux; U; Android 14)", at: 2))
        #expect(engine.report().findings.isEmpty)
    }

    // MARK: - sent-not-received

    static func accepted(_ id: String, token: String, provider: PushProvider, at: Int64) -> CheckObservation {
        .sendAccepted(
            CheckObservation.AcceptedSend(messageId: id, token: token, app: "app", provider: provider, at: at))
    }

    @Test mutating func anAcceptedPushWithoutReceiveWithinTheWindowIsAWarning() {
        _ = run(
            Self.composed("1000001", .android, token: "testToken"),
            Self.accepted("1000001", token: "testToken", provider: .fcm, at: Self.start + Self.second))
        #expect(engine.advance(to: Self.start + 120 * Self.second).isEmpty)
        #expect(engine.advance(to: Self.start + 121 * Self.second).map(\.change) == [.appeared])
        let finding = try! #require(findings(.sentNotReceived).first)
        #expect(finding.severity == .warning && finding.message.contains("FCM accepted message 1000001"))
        // It came after all: the loop works, only slowly.
        #expect(
            run(Self.hit(1, message: "1000001", token: "testToken", at: Self.start + 200 * Self.second))
                .map(\.change) == [.cleared])
    }

    @Test mutating func theWindowIsASetting() {
        var settings = ChecksEngine.Settings()
        settings.receiveWindow = 5 * Self.second
        engine = ChecksEngine(settings: settings)
        _ = run(
            Self.composed("1000001", .ios, token: Self.apnsToken, contentAvailable: true),
            Self.accepted("1000001", token: Self.apnsToken, provider: .apns, at: Self.start))
        _ = engine.advance(to: Self.start + 5 * Self.second)
        #expect(findings(.sentNotReceived).first?.message.contains("within 5 s") == true)
    }

    @Test mutating func aReceivedPushAndAVisibleIOSPushAreSilent() {
        _ = run(
            Self.composed("1000001", .android, token: "testToken"),
            Self.accepted("1000001", token: "testToken", provider: .fcm, at: Self.start),
            Self.hit(1, message: "1000001", token: "testToken", at: Self.start + 3 * Self.second),
            // A visible push in the background sends no receive by design.
            Self.composed("1000002", .ios, token: Self.apnsToken),
            Self.accepted("1000002", token: Self.apnsToken, provider: .apns, at: Self.start))
        _ = engine.advance(to: Self.start + 3600 * Self.second)
        #expect(engine.report().findings.isEmpty)
    }

    // MARK: - registration-refused

    static func refused(
        _ status: Int, _ cause: RegistrationError, app: String?, platform: Platform = .android, at: Int64 = start
    ) -> CheckObservation {
        .registrationRefused(
            CheckObservation.RefusedRegistration(
                platform: platform, app: app, status: status, cause: cause,
                knownKeys: ["campaign-mock-demo-ios": .ios, "campaign-mock-demo-android": .android], at: at,
                requestId: 2))
    }

    @Test mutating func refusalsForAnUnknownKeyAreGroupedAndNameTheNearestKey() {
        for index in 0..<3 {
            _ = run(
                Self.refused(
                    404, .unknownIntegrationKey("campaign-mock-demo-andriod"), app: "campaign-mock-demo-andriod",
                    at: Self.start + Int64(index)))
        }
        let finding = try! #require(findings(.registrationRefused).first)
        #expect(findings(.registrationRefused).count == 1)
        #expect(finding.severity == .error && finding.count == 3)
        #expect(finding.message.contains("3 registrations") && finding.message.contains("'campaign-mock-demo-android'"))
        #expect(finding.fix.contains("campaignclassic.android.integrationKey"))
    }

    @Test mutating func aKeyFarFromEveryKnownOneNamesNone() {
        _ = run(Self.refused(404, .unknownIntegrationKey("x"), app: "x"))
        #expect(findings(.registrationRefused).first?.message.contains("nearest") == false)
    }

    @Test mutating func eachKindOfRefusalHasItsOwnFinding() {
        _ = run(
            Self.refused(400, .missingIntegrationKey, app: nil),
            Self.refused(400, .missingRegistrationToken, app: "campaign-mock-demo-android"),
            Self.refused(
                400, .wrongPlatform(key: "campaign-mock-demo-ios", platform: .ios), app: "campaign-mock-demo-ios"),
            Self.refused(403, .disabled(name: "Demo"), app: "campaign-mock-demo-android"),
            Self.refused(400, .malformed("param without a name attribute"), app: "campaign-mock-demo-android"))
        #expect(
            Set(findings(.registrationRefused).map(\.id))
                == [
                    "registration-refused:android:missing-key", "registration-refused:android:missing-token",
                    "registration-refused:android:wrong-platform", "registration-refused:android:disabled",
                    "registration-refused:android:malformed",
                ])
    }

    @Test func editDistanceCountsInsertionsDeletionsAndSubstitutions() {
        #expect(ChecksEngine.editDistance("kitten", "sitting") == 3)
        #expect(ChecksEngine.editDistance("", "abc") == 3)
        #expect(ChecksEngine.editDistance("andriod", "android") == 2)
    }

    // MARK: - token-platform-mismatch

    @Test mutating func anAPNsTokenUnderTheAndroidKeyIsAnError() {
        _ = run(Self.registration("campaign-mock-demo-android", .android, token: Self.apnsToken))
        let finding = try! #require(findings(.tokenPlatformMismatch).first)
        #expect(finding.severity == .error && finding.message.contains("64-hex-digit APNs"))
    }

    @Test mutating func anFCMTokenUnderTheIOSKeyIsAnError() {
        _ = run(Self.registration("campaign-mock-demo-ios", .ios, token: Self.fcmToken))
        #expect(findings(.tokenPlatformMismatch).first?.severity == .error)
    }

    @Test mutating func eachPlatformsOwnTokensAreSilent() {
        // The SDKs' test tokens (docs/protocol.md §3.5) and real-shaped ones.
        _ = run(
            Self.registration("integrationKey", .ios, token: Self.iosToken),
            Self.registration("campaign-mock-demo-ios", .ios, token: Self.apnsToken),
            Self.registration("testIntegrationKey", .android, token: "testToken"),
            Self.registration("campaign-mock-demo-android", .android, token: Self.fcmToken))
        #expect(findings(.tokenPlatformMismatch).isEmpty)
    }

    // MARK: - param-drift

    @Test mutating func aParamThatChangesTypeIsAWarning() {
        _ = run(
            Self.registration("app", .ios, token: "a", params: [AdditionalParam(name: "plan", value: "42")]),
            Self.registration("app", .ios, token: "b", params: [AdditionalParam(name: "plan", value: "gold")]))
        let finding = try! #require(findings(.paramDrift).first)
        #expect(finding.severity == .warning)
        #expect(finding.message.contains("a string (\"gold\")") && finding.message.contains("an integer (42)"))
    }

    @Test mutating func aParamThatChangesLetterCaseIsAWarning() {
        _ = run(
            Self.registration("app", .android, token: "a", params: [AdditionalParam(name: "plan", value: "gold")]),
            Self.registration("app", .android, token: "a", params: [AdditionalParam(name: "Plan", value: "gold")]))
        #expect(findings(.paramDrift).first?.title.contains("letter case") == true)
    }

    @Test mutating func theSDKsOwnParamsAreSilent() {
        // docs/protocol.md §9 item 5: Android's types; a float may come as 3 one time and 3.5 the next.
        let android = [
            ("company", "xxx.corp"), ("isRegistered", "true"), ("serial", "12345"), ("float", "3.14"),
            ("double", "6.75"), ("long", "500"), ("byte", "100"), ("char", "97"), ("short", "200"),
        ].map { AdditionalParam(name: $0.0, value: $0.1) }
        _ = run(
            Self.registration("app", .android, token: "a", params: android),
            Self.registration("app", .android, token: "b", params: android),
            Self.registration("app", .android, token: "c", params: [AdditionalParam(name: "float", value: "3")]))
        #expect(engine.report().findings.isEmpty)
    }

    // MARK: - user-key-missing

    @Test mutating func devicesWithoutUserKeyBesideOnesWithOneAreInformation() {
        _ = run(
            Self.registration("app", .ios, token: "a", userKey: "jane@example.com"),
            Self.registration("app", .ios, token: "b", userKey: ""))
        let finding = try! #require(findings(.userKeyMissing).first)
        #expect(finding.severity == .info && finding.count == 1 && finding.registrationToken == "b")
        // The user logged in: the device registers again with its userKey.
        let changes = run(Self.registration("app", .ios, token: "b", userKey: "john@example.com"))
        #expect(changes.map(\.change) == [.cleared])
    }

    /// The usual order: the first registration comes before the login, without a userKey; the keyed ones
    /// after it. The keyed registration that makes the devices disagree raises the finding.
    @Test mutating func aKeyedRegistrationAfterOneWithoutRaisesTheUserKeyFinding() throws {
        let changes = run(
            Self.registration("app", .ios, token: "b", userKey: "", requestId: 1),
            Self.registration("app", .ios, token: "a", userKey: "jane@example.com", requestId: 2))
        #expect(changes.map(\.change) == [.appeared])
        let finding = try #require(findings(.userKeyMissing).first)
        #expect(finding.count == 1 && finding.registrationToken == "b" && finding.evidence.requestIds == [2])
        #expect(finding.message.contains("1 device registered without a userKey, while 1 other carries one"))
    }

    /// Two devices without a userKey; one logs in: the other still lacks one.
    @Test mutating func aDeviceGainingItsUserKeyRaisesTheFindingForTheOthers() throws {
        _ = run(
            Self.registration("app", .ios, token: "a", userKey: ""),
            Self.registration("app", .ios, token: "b", userKey: ""))
        #expect(findings(.userKeyMissing).isEmpty)
        #expect(
            run(Self.registration("app", .ios, token: "a", userKey: "jane@example.com")).map(\.change) == [.appeared])
        #expect(try #require(findings(.userKeyMissing).first).registrationToken == "b")
    }

    @Test mutating func theUserKeyFindingFollowsTheNumbersOfDevices() throws {
        _ = run(
            Self.registration("app", .ios, token: "a", userKey: "jane@example.com"),
            Self.registration("app", .ios, token: "b", userKey: ""))
        _ = engine.takeUpdates()
        // Another device with a userKey: the same finding, with the new numbers.
        #expect(run(Self.registration("app", .ios, token: "c", userKey: "john@example.com")).isEmpty)
        let updates = engine.takeUpdates()
        #expect(updates.map(\.change) == [.updated])
        let finding = try #require(updates.first?.finding)
        #expect(finding.count == 1 && finding.registrationToken == "b")
        #expect(finding.message.contains("1 device registered without a userKey, while 2 others carry one"))
        // A device registering again as it was changes nothing.
        _ = run(Self.registration("app", .ios, token: "a", userKey: "jane@example.com"))
        #expect(engine.takeUpdates().isEmpty)
        // One more without: counted, and the newest is named.
        _ = run(Self.registration("app", .ios, token: "d", userKey: "", requestId: 4))
        let counted = try #require(engine.takeUpdates().first?.finding)
        #expect(counted.count == 2 && counted.registrationToken == "d" && counted.evidence.requestIds == [1, 4])
        #expect(counted.message.contains("2 devices registered without a userKey, while 2 others carry one"))
    }

    @Test mutating func forgottenDevicesNoLongerCountForTheUserKeyFinding() {
        var settings = ChecksEngine.Settings()
        settings.deviceLimit = 4
        engine = ChecksEngine(settings: settings)
        _ = run(
            Self.registration("app", .ios, token: "b", userKey: "jane@example.com"),
            Self.registration("app", .ios, token: "c", userKey: "john@example.com"),
            Self.registration("app", .ios, token: "a", userKey: ""),
            Self.registration("app", .ios, token: "d", userKey: "jim@example.com"))
        #expect(findings(.userKeyMissing).first?.message.contains("while 3 others carry one") == true)
        _ = engine.takeUpdates()
        // "b", the oldest, is forgotten to make room for another app's device: the numbers change.
        #expect(run(Self.registration("other", .ios, token: "x")).isEmpty)
        #expect(engine.takeUpdates().first?.finding.message.contains("while 2 others carry one") == true)
        // "c", then "a" are forgotten: no device of the app lacks a userKey any more.
        _ = run(Self.registration("other", .ios, token: "y"))
        #expect(run(Self.registration("other", .ios, token: "z")).map(\.change) == [.cleared])
        #expect(findings(.userKeyMissing).isEmpty)
    }

    @Test mutating func anAppWhoseDevicesAllLackAUserKeyIsSilent() {
        _ = run(
            Self.registration("app", .ios, token: "a", userKey: ""),
            Self.registration("app", .ios, token: "b", userKey: ""))
        #expect(engine.report().findings.isEmpty)
    }

    // MARK: - registration-storm

    @Test mutating func manyIdenticalRegistrationsInAMinuteAreInformation() {
        for index in 0..<10 {
            _ = run(
                Self.registration(
                    "app", .android, token: "testToken", identical: index > 0,
                    at: Self.start + Int64(index) * Self.second
                ))
        }
        #expect(findings(.registrationStorm).isEmpty, "nine identical ones, after the first")
        _ = run(
            Self.registration("app", .android, token: "testToken", identical: true, at: Self.start + 10 * Self.second))
        let finding = try! #require(findings(.registrationStorm).first)
        #expect(finding.severity == .info)
        #expect(finding.message.contains("AEP extension") && finding.message.contains("legacy SDK"))
    }

    @Test mutating func aLegacyAppRegisteringAtEachStartIsSilent() {
        // One start every ten seconds, a UI test suite's pace: at most six in any minute.
        for index in 0..<30 {
            _ = run(
                Self.registration(
                    "app", .ios, token: Self.apnsToken, identical: index > 0,
                    at: Self.start + Int64(index) * 10 * Self.second))
        }
        #expect(engine.report().findings.isEmpty)
    }

    // MARK: - fault-active

    static func faulted(_ endpoint: EndpointFamily, rule: String = "f1", status: Int = 503, at: Int64 = start)
        -> CheckObservation
    {
        .faultFailed(
            CheckObservation.FaultFailure(ruleId: rule, endpoint: endpoint, status: status, app: nil, at: at))
    }

    @Test mutating func requestsFailedByAFaultAreInformationUntilTheRuleGoes() {
        _ = run(Self.faulted(.registrationIOS), Self.faulted(.registrationIOS))
        let finding = try! #require(findings(.faultActive).first)
        #expect(finding.severity == .info && finding.count == 2 && finding.fix.contains("DELETE /_mock/faults/f1"))
        #expect(engine.faultRules(["f1"]).isEmpty)
        #expect(engine.faultRules([]).map(\.change) == [.cleared])
    }

    @Test mutating func aTrackingFaultExplainsAMissingReceive() {
        _ = run(
            Self.composed("1000001", .android, token: "testToken"),
            Self.faulted(.tracking, at: Self.start + 1),
            Self.hit(2, message: "1000001", token: "testToken", at: Self.start + 2))
        _ = engine.advance(to: Self.start + 3600 * Self.second)
        #expect(engine.report().findings.map(\.rule) == ["fault-active"])
    }

    // MARK: - The report and the bounds

    @Test mutating func theReportFiltersAndPutsTheMostSevereFirst() {
        _ = run(
            Self.registration("app", .ios, token: "a", userKey: "jane"),
            Self.registration("app", .ios, token: "b", userKey: "", at: Self.start + 5 * Self.second),
            Self.registration("other", .android, token: Self.apnsToken, at: Self.start + 10 * Self.second))
        let report = engine.report()
        #expect(report.findings.map(\.rule) == ["token-platform-mismatch", "user-key-missing"])
        #expect(report.counts == CheckReport.Counts(error: 1, warning: 0, info: 1))
        #expect(engine.report(ChecksEngine.Filter(app: "app")).findings.map(\.rule) == ["user-key-missing"])
        #expect(engine.report(ChecksEngine.Filter(token: Self.apnsToken)).counts.error == 1)
        #expect(engine.report(ChecksEngine.Filter(minimum: .error)).counts == CheckReport.Counts(error: 1))
        #expect(engine.report(ChecksEngine.Filter(since: Self.start + 10 * Self.second)).findings.count == 1)
    }

    /// `index` hits of messages never composed, a second apart: one finding.
    static func unknownHit(_ index: Int) -> CheckObservation {
        .hit(
            CheckObservation.Hit(
                kind: .receive, trackingId: "h3039,d\(index)", deliveryId: "d\(index)", link: nil, userAgent: nil,
                at: start + Int64(index) * second + 999, requestId: Int64(index)))
    }

    @Test mutating func aFindingThatHappensAgainIsUpdatedOnceWhenTheUpdatesAreTaken() {
        #expect(run(Self.unknownHit(1)).map(\.change) == [.appeared])
        #expect(run(Self.unknownHit(2), Self.unknownHit(3)).isEmpty, "an update waits to be taken")
        let updates = engine.takeUpdates()
        #expect(updates.map(\.change) == [.updated] && updates.first?.finding.count == 3)
        #expect(engine.takeUpdates().isEmpty)
        _ = run(Self.faulted(.registrationIOS), Self.faulted(.registrationIOS))
        #expect(engine.faultRules([]).map(\.change) == [.cleared])
        #expect(engine.takeUpdates().isEmpty, "a finding that cleared has no update to announce")
    }

    @Test mutating func theEvidenceKeepsTheNewestRequestsAndTimes() throws {
        for index in 1...12 { _ = run(Self.unknownHit(index)) }
        let finding = try #require(findings(.unknownMessage).first)
        #expect(finding.count == 12)
        #expect(finding.evidence.requestIds == Array(3...12))
        #expect(finding.evidence.times.first == "2026-09-21T14:13:23.000Z")
        #expect(finding.evidence.times.last == "2026-09-21T14:13:32.000Z" && finding.evidence.times.count == 10)
        #expect(finding.firstSeen == "2026-09-21T14:13:21.000Z" && finding.lastSeen == finding.evidence.times.last)
        let since = Self.start + 12 * Self.second
        #expect(engine.report(ChecksEngine.Filter(since: since)).findings.count == 1, "the same millisecond")
        #expect(engine.report(ChecksEngine.Filter(since: since + 1000)).findings.isEmpty)
    }

    @Test mutating func theOldestFindingGoesWhenTheTableIsFull() {
        var settings = ChecksEngine.Settings()
        settings.findingLimit = 3
        engine = ChecksEngine(settings: settings)
        for index in 0..<3 {
            _ = run(Self.registration("app", .android, token: Self.apnsToken + "\(index)\(index)"))
        }
        let changes = run(Self.registration("app", .android, token: Self.apnsToken + "99"))
        #expect(changes.map(\.change) == [.cleared, .appeared])
        #expect(changes.first?.finding.registrationToken == Self.apnsToken + "00")
        #expect(engine.report().findings.count == 3)
    }

    @Test mutating func forgottenMessagesAreNotJudged() {
        var settings = ChecksEngine.Settings()
        settings.messageLimit = 2
        engine = ChecksEngine(settings: settings)
        _ = run(
            Self.composed("1", .android, token: "t"), Self.composed("2", .android, token: "t"),
            Self.composed("3", .android, token: "t"), Self.hit(2, message: "1", token: "t", at: Self.start))
        _ = engine.advance(to: Self.start + 3600 * Self.second)
        #expect(engine.report().findings.isEmpty)
    }

    @Test mutating func aResetClearsEveryFinding() {
        _ = run(Self.registration("app", .android, token: Self.apnsToken))
        #expect(engine.reset().map(\.change) == [.cleared])
        #expect(engine.report().findings.isEmpty)
    }
}

/// The engine at the volume of a long-lived instance: 100,000 devices and 1,000,000 hits. What it keeps stays
/// within its bounds, and the report (which `GET /_mock/checks` encodes) is measured and printed: it reads the
/// engine's tables, never the store, so its cost follows the findings kept (at most 2,000), not the traffic.
@Suite struct ChecksEngineVolumeTests {
    @Test func theTablesStayWithinTheirBoundsAt100kDevicesAnd1MHits() throws {
        var engine = ChecksEngine()
        let start = ChecksEngineTests.start
        for index in 0..<100_000 {
            // One device in fifty registers the iOS build's token under the Android key: a finding each.
            let token = index % 50 == 0 ? ChecksEngineTests.apnsToken + String(format: "%06d", index) : "fcm-\(index)"
            _ = engine.observe(
                ChecksEngineTests.registration(
                    "campaign-mock-demo-android", .android, token: token, userKey: index % 2 == 0 ? "u\(index)" : "",
                    at: start + Int64(index)))
        }
        for index in 0..<100_000 {
            _ = engine.observe(
                ChecksEngineTests.composed("\(1_000_000 + index)", .android, token: "fcm-\(index)", at: start))
        }
        for index in 0..<1_000_000 {
            let message = 1_000_000 + index % 100_000
            _ = engine.observe(
                ChecksEngineTests.hit(
                    index % 3 == 0 ? 2 : 1, message: "\(message)", token: "fcm-\(message - 1_000_000)",
                    at: start + Int64(index)))
        }
        _ = engine.advance(to: start + 3_600 * ChecksEngineTests.second)
        #expect(engine.findings.count == engine.settings.findingLimit)
        #expect(engine.messages.count == engine.settings.messageLimit)
        #expect(engine.devices.count == engine.settings.deviceLimit)
        let clock = ContinuousClock()
        var encoded = 0
        let elapsed = try clock.measure {
            let report = engine.report(ChecksEngine.Filter(minimum: .info))
            encoded = try JSONEncoder().encode(report).count
        }
        print("checks report at 100k devices, 1M hits: \(engine.findings.count) findings, \(encoded) B, \(elapsed)")
    }
}
