import CampaignMockModel
import CampaignMockPush
import Foundation
import Testing

@testable import CampaignMockAdmin

/// One rule: payloads that break it and payloads that keep it (the same payload otherwise, so each pair
/// shows what the rule looks at).
struct RuleCase: Sendable, CustomTestStringConvertible {
    let rule: PayloadCheck.Rule
    let severity: PayloadCheck.Severity
    let platform: Platform
    let broken: [String]
    let fine: [String]

    var testDescription: String { rule.rawValue }
}

private let ids = #""_mId":"1000001","_dId":"7a001""#

/// An APNs payload: `aps`, Campaign's ids and `extra` top-level fields.
private func apns(_ aps: String = #"{"alert":{"title":"T","body":"B"},"sound":"default"}"#, extra: String = "")
    -> String
{
    #"{"aps":\#(aps),\#(ids)\#(extra.isEmpty ? "" : "," + extra)}"#
}

/// An FCM HTTP v1 body for a token: Campaign's ids and `data` in the data, `extra` fields in the message.
private func fcm(data: String = #""title":"T","_msg":"B""#, _ extra: String = "") -> String {
    #"{"message":{"token":"t","data":{\#(ids)\#(data.isEmpty ? "" : "," + data)}\#(extra.isEmpty ? "" : "," + extra)}}"#
}

private func check(_ text: String, _ platform: Platform) throws -> PayloadCheck {
    let payload = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    return platform == .ios ? PayloadChecker.apns(payload) : PayloadChecker.fcm(payload)
}

private let long = String(repeating: "x", count: 4100)

private let apnsCases: [RuleCase] = [
    .init(rule: .apnsEmpty, severity: .error, platform: .ios, broken: ["{}", "[]"], fine: [apns()]),
    .init(
        rule: .apnsSize, severity: .error, platform: .ios, broken: [apns(extra: #""VAR":"\#(long)""#)],
        fine: [apns(extra: #""VAR":"\#(long.prefix(3900))""#)]),
    .init(
        rule: .apnsMediaWithoutExtension, severity: .error, platform: .ios,
        broken: [apns(#"{"alert":"Hi"}"#, extra: #""mediaUrl":"https://example.test/a.jpg""#)],
        fine: [apns(#"{"alert":"Hi","mutable-content":1}"#, extra: #""mediaUrl":"https://example.test/a.jpg""#)]),
    .init(rule: .apsMissing, severity: .error, platform: .ios, broken: ["{\(ids)}"], fine: [apns()]),
    .init(rule: .apsType, severity: .error, platform: .ios, broken: [apns(#""Hi""#)], fine: [apns()]),
    .init(
        rule: .apsUnknownKey, severity: .warning, platform: .ios, broken: [apns(#"{"alert":"Hi","priority":10}"#)],
        fine: [apns(#"{"alert":"Hi","thread-id":"t","content-state":{}}"#)]),
    .init(
        rule: .apsNothingToShow, severity: .warning, platform: .ios, broken: [apns(#"{"category":"sale"}"#)],
        fine: [apns(#"{"badge":1}"#), apns(#"{"content-available":1}"#)]),
    .init(
        rule: .apsAlertType, severity: .error, platform: .ios,
        broken: [apns(#"{"alert":5}"#), apns(#"{"alert":{"title":5}}"#), apns(#"{"alert":{"loc-args":[1]}}"#)],
        fine: [apns(#"{"alert":"Hi"}"#), apns(#"{"alert":{"loc-key":"K","loc-args":["a"],"subtitle":"S"}}"#)]),
    .init(
        rule: .apsAlertUnknownKey, severity: .warning, platform: .ios, broken: [apns(#"{"alert":{"titel":"T"}}"#)],
        fine: [apns(#"{"alert":{"title":"T"}}"#)]),
    .init(
        rule: .apsBadgeType, severity: .error, platform: .ios,
        broken: [apns(#"{"badge":-1}"#), apns(#"{"badge":"3"}"#), apns(#"{"badge":1.5}"#)],
        fine: [apns(#"{"badge":0}"#), apns(#"{"badge":12}"#)]),
    .init(
        rule: .apsSoundType, severity: .error, platform: .ios,
        broken: [
            apns(#"{"alert":"Hi","sound":5}"#), apns(#"{"alert":"Hi","sound":{"critical":1}}"#),
            apns(#"{"alert":"Hi","sound":{"critical":1,"name":"a.caf","volume":2}}"#),
        ],
        fine: [
            apns(#"{"alert":"Hi","sound":"a.caf"}"#),
            apns(#"{"alert":"Hi","sound":{"critical":1,"name":"a.caf","volume":0.5}}"#),
        ]),
    .init(
        rule: .apsFlagValue, severity: .error, platform: .ios,
        broken: [
            apns(#"{"content-available":true}"#), apns(#"{"content-available":0}"#),
            apns(#"{"alert":"Hi","mutable-content":"1"}"#),
        ],
        fine: [apns(#"{"content-available":1}"#), apns(#"{"alert":"Hi","mutable-content":1}"#)]),
    .init(
        rule: .apsStringType, severity: .error, platform: .ios,
        broken: [apns(#"{"alert":"Hi","category":5}"#), apns(#"{"alert":"Hi","thread-id":[]}"#)],
        fine: [apns(#"{"alert":"Hi","category":"sale","thread-id":"t","target-content-id":"c"}"#)]),
    .init(
        rule: .apsInterruptionLevel, severity: .error, platform: .ios,
        broken: [apns(#"{"alert":"Hi","interruption-level":"urgent"}"#)],
        fine: [apns(#"{"alert":"Hi","interruption-level":"time-sensitive"}"#)]),
    .init(
        rule: .apsRelevanceScore, severity: .error, platform: .ios,
        broken: [apns(#"{"alert":"Hi","relevance-score":2}"#), apns(#"{"alert":"Hi","relevance-score":"0.5"}"#)],
        fine: [apns(#"{"alert":"Hi","relevance-score":0.5}"#)]),
    .init(
        rule: .apsBackground, severity: .info, platform: .ios, broken: [apns(#"{"content-available":1}"#)],
        fine: [apns()]),
    .init(
        rule: .apsBackgroundWithAlert, severity: .warning, platform: .ios,
        broken: [apns(#"{"content-available":1,"alert":"Hi"}"#), apns(#"{"content-available":1,"badge":2}"#)],
        fine: [apns(#"{"content-available":1}"#)]),
    .init(
        rule: .apsMutableContentWithoutAlert, severity: .warning, platform: .ios,
        broken: [
            apns(#"{"mutable-content":1,"badge":1}"#), apns(#"{"mutable-content":1,"alert":{},"sound":"default"}"#),
            apns(#"{"mutable-content":1,"alert":{"title":""},"sound":"default"}"#),
            apns(#"{"mutable-content":1,"alert":"","badge":1}"#),
        ],
        fine: [
            apns(#"{"mutable-content":1,"alert":"Hi"}"#), apns(#"{"mutable-content":1,"alert":{"body":"B"}}"#),
            apns(#"{"mutable-content":1,"alert":{"loc-key":"SALE"}}"#),
        ]),
]

private let fcmCases: [RuleCase] = [
    .init(
        rule: .fcmMessageMissing, severity: .error, platform: .android,
        broken: [#"{"token":"t","data":{\#(ids)}}"#, #"{"message":"x"}"#], fine: [fcm()]),
    .init(
        rule: .fcmUnknownKey, severity: .error, platform: .android,
        broken: [fcm(#""priority":"high""#), #"{"message":{"token":"t","data":{\#(ids)}},"extra":1}"#],
        fine: [
            fcm(#""fcm_options":{}"#), fcm(#""fcmOptions":{"analyticsLabel":"sale"}"#),
            #"{"message":{"token":"t","data":{\#(ids)}},"validate_only":true}"#,
            #"{"message":{"token":"t","data":{\#(ids)}},"validateOnly":true}"#,
        ]),
    .init(
        rule: .fcmTarget, severity: .error, platform: .android,
        broken: [
            #"{"message":{"data":{\#(ids)}}}"#, fcm(#""topic":"news""#), #"{"message":{"token":5,"data":{\#(ids)}}}"#,
        ],
        fine: [#"{"message":{"topic":"news","data":{\#(ids)}}}"#, fcm()]),
    .init(
        rule: .fcmDataType, severity: .error, platform: .android,
        broken: [fcm(data: #""badge":3"#), #"{"message":{"token":"t","data":"x"}}"#], fine: [fcm(data: #""badge":"3""#)]
    ),
    .init(
        rule: .fcmDataReservedKey, severity: .error, platform: .android,
        broken: [
            fcm(data: #""from":"x""#), fcm(data: #""message_type":"x""#), fcm(data: #""google.c.a":"x""#),
            fcm(data: #""gcm.n.e":"1""#), fcm(data: #""google_label":"x""#), fcm(data: #""gcmToken":"x""#),
        ],
        fine: [fcm(data: #""notification":"x","fromage":"x","my_google":"x","message":"x""#)]),
    .init(
        rule: .fcmSize, severity: .error, platform: .android, broken: [fcm(data: #""VAR":"\#(long)""#)],
        fine: [fcm(data: #""VAR":"\#(long.prefix(3900))""#)]),
    .init(
        rule: .fcmAndroidPriority, severity: .error, platform: .android,
        broken: [fcm(#""android":{"priority":"urgent"}"#), fcm(#""android":{"priority":10}"#)],
        fine: ["high", "normal", "HIGH", "NORMAL"].map { fcm(#""android":{"priority":"\#($0)"}"#) }),
    .init(
        rule: .fcmAndroidPriorityMissing, severity: .info, platform: .android,
        broken: [fcm(), fcm(#""android":{"ttl":"60s"}"#)],
        fine: [
            fcm(#""android":{"priority":"normal"}"#), fcm(#""notification":{"title":"T"}"#),
            fcm(#""android":{"notification":{"title":"T"}}"#),
        ]),
    .init(
        rule: .fcmAndroidTTL, severity: .error, platform: .android,
        broken: [
            fcm(#""android":{"ttl":"3600"}"#), fcm(#""android":{"ttl":"1.5"}"#), fcm(#""android":{"ttl":"s"}"#),
            fcm(#""android":{"ttl":"1.1234567890s"}"#), fcm(#""android":{"ttl":60}"#),
        ],
        fine: [fcm(#""android":{"ttl":"3600s"}"#), fcm(#""android":{"ttl":"0.5s"}"#)]),
    .init(
        rule: .fcmNotification, severity: .warning, platform: .android,
        broken: [fcm(#""notification":{"title":"T"}"#), fcm(#""android":{"notification":{"title":"T"}}"#)],
        fine: [fcm(#""android":{"priority":"HIGH"}"#)]),
]

/// The Campaign SDK rules, on both platforms: the same keys at the top level (iOS) or in the data (Android).
private let sdkCases: [RuleCase] = Platform.allCases.flatMap { platform -> [RuleCase] in
    /// A payload of the platform with these Campaign keys (`"_mId":"1"`) and nothing else of Campaign's.
    func payload(_ keys: String) -> String {
        platform == .ios
            ? #"{"aps":{"alert":"Hi","mutable-content":1},\#(keys)}"#
            : #"{"message":{"token":"t","data":{\#(keys)}}}"#
    }
    let dID = #""_dId":"7a001""#
    let mID = #""_mId":"1000001""#
    var cases: [RuleCase] = [
        .init(
            rule: .sdkMessageIDMissing, severity: .error, platform: platform, broken: [payload(dID)],
            fine: [payload(mID + "," + dID)]),
        .init(
            rule: .sdkMessageIDType, severity: .error, platform: platform, broken: [payload(#""_mId":1000001,"# + dID)],
            fine: [payload(mID + "," + dID)]),
        .init(
            rule: .sdkMessageIDFormat, severity: .error, platform: platform,
            broken: [#""_mId":"a8a""#, #""_mId":"1-1-1-1-1""#, #""_mId":"""#].map { payload($0 + "," + dID) },
            fine: [#""_mId":"-673096100""#, #""_mId":"6b6499a8-9d43-4bc5-acf0-b6aeb96846f6""#].map {
                payload($0 + "," + dID)
            }),
        .init(
            rule: .sdkDeliveryIDMissing, severity: .error, platform: platform, broken: [payload(mID)],
            fine: [payload(mID + "," + dID)]),
        .init(
            rule: .sdkDeliveryIDType, severity: .error, platform: platform, broken: [payload(mID + #","_dId":5"#)],
            fine: [payload(mID + "," + dID)]),
        .init(
            rule: .sdkDeliveryIDFormat, severity: .error, platform: platform,
            broken: [#""_dId":"""#, #""_dId":"7a,001""#, #""_dId":"7a 001""#].map { payload(mID + "," + $0) },
            fine: [payload(mID + "," + dID)]),
        .init(
            rule: .sdkDeliveryIDHex, severity: .warning, platform: platform,
            broken: [#""_dId":"7A001""#, #""_dId":"testDeliveryId""#].map { payload(mID + "," + $0) },
            fine: [payload(mID + "," + dID)]),
        .init(
            rule: .sdkMediaURL, severity: .warning, platform: platform,
            broken: [payload(mID + "," + dID + #","mediaUrl":"ftp://example.test/a.jpg""#)],
            fine: [payload(mID + "," + dID + #","mediaUrl":"https://example.test/a.jpg""#)]),
    ]
    switch platform {
    case .ios:
        cases.append(
            .init(
                rule: .sdkMessageIDLow32Bits, severity: .info, platform: .ios,
                broken: [payload(#""_mId":"50000000000001","# + dID)], fine: [payload(#""_mId":"4294967295","# + dID)]))
    case .android:
        cases += [
            .init(
                rule: .sdkMediaURL, severity: .warning, platform: .android,
                broken: [payload(mID + "," + dID + #","adb_image":"image.jpg""#)],
                fine: [payload(mID + "," + dID + #","adb_image":"https://example.test/a.jpg""#)]),
            .init(
                rule: .sdkLinkURI, severity: .warning, platform: .android,
                broken: [payload(mID + "," + dID + #","adb_uri":"sale""#)],
                fine: [payload(mID + "," + dID + #","adb_uri":"app://sale""#)]),
        ]
    }
    return cases
}

@Suite("payload check")
struct PayloadCheckerTests {
    @Test(arguments: apnsCases + fcmCases + sdkCases)
    func eachRuleFiresOnPayloadsThatBreakItAndOnlyThen(_ rule: RuleCase) throws {
        for payload in rule.broken {
            let result = try check(payload, rule.platform)
            let found = result.findings.filter { $0.rule == rule.rule }
            #expect(found.map(\.severity).contains(rule.severity), "\(payload): \(result.findings)")
            #expect(found.allSatisfy { !$0.message.isEmpty })
            if rule.rule.isTracking && rule.severity == .error {
                #expect(!result.tracked, "\(payload)")
            }
        }
        for payload in rule.fine {
            let result = try check(payload, rule.platform)
            #expect(!result.findings.contains { $0.rule == rule.rule }, "\(payload): \(result.findings)")
            #expect(result.tracked, "\(payload)")
        }
    }

    @Test func everyRuleIsTested() {
        let tested = Set((apnsCases + fcmCases + sdkCases).map(\.rule))
        #expect(Set(PayloadCheck.Rule.allCases).subtracting(tested).isEmpty)
    }

    @Test func countsAndOrderFollowTheFindings() throws {
        let result = try check(#"{"aps":{"content-available":1,"alert":"Hi","badge":-1},"_mId":7}"#, .ios)
        #expect(result.errors == 3)  // badge, _mId type, _dId missing
        #expect(result.warnings == 1)  // content-available with an alert
        #expect(!result.tracked)
        #expect(result.findings.map(\.severity) == [.error, .error, .error, .warning])
        #expect(result.findings.first?.path == "aps.badge")
        #expect(result.findings.contains { $0.message.contains("the SDK would not track this push") })
    }

    @Test func aPayloadOverTheLimitSaysHowManyBytes() throws {
        let payload = apns(extra: #""VAR":"\#(long)""#)
        let finding = try #require(try check(payload, .ios).findings.first { $0.rule == .apnsSize })
        #expect(finding.message.contains("the payload is \(payload.utf8.count) bytes"), "\(finding.message)")
        #expect(finding.message.hasSuffix("over the 4096 APNs accepts: APNs refuses it and nothing reaches the device"))
    }

    @Test(arguments: [
        PushRequest(title: "Sale", body: "20% off", badge: 2, category: "sale"),
        PushRequest(body: "Look", mediaUrl: "https://example.test/a.jpg", variables: ["deeplink": "app://sale"]),
        PushRequest(title: "T", idStyle: .v8),
    ])
    func composedPushesPassTheirOwnCheck(_ request: PushRequest) throws {
        for platform in Platform.allCases {
            let message = try PushComposer.message(
                request, device: ("token", platform, "app"), messageID: "1000001", deliveryID: "7a001")
            let result = try #require(message.check)
            #expect(result == PayloadCheck(findings: []), "\(platform): \(result.findings)")
        }
    }

    @Test func aBackgroundPushWithAnAlertMaySendAtPriority5Or10() throws {
        let result = try check(apns(#"{"content-available":1,"alert":"Hi"}"#), .ios)
        let finding = try #require(result.findings.first { $0.rule == .apsBackgroundWithAlert })
        #expect(finding.message.contains("priority 10 (at once) or 5"), "\(finding.message)")
    }

    @Test(arguments: [
        (PushRequest(title: "Sale"), "high"), (PushRequest(silent: true), "normal"),
        (PushRequest(title: "Sale", androidPriority: .normal), "normal"),
        (PushRequest(silent: true, androidPriority: .high), "high"),
    ])
    func aComposedFCMMessageNamesItsAndroidPriority(_ request: PushRequest, _ priority: String) throws {
        let message = try PushComposer.message(
            request, device: ("token", .android, "app"), messageID: "1000001", deliveryID: "7a001")
        #expect(message.fcm?["message"]?["android"] == .object(["priority": .string(priority)]))
        #expect(message.check == PayloadCheck(findings: []), "\(String(describing: message.check))")
    }

    @Test func aComposedSilentPushIsNamedABackgroundPush() throws {
        let message = try PushComposer.message(
            PushRequest(silent: true), device: ("token", .ios, "app"), messageID: "1000001", deliveryID: "7a001")
        #expect(message.check?.findings.map(\.rule) == [.apsBackground])
        #expect(message.check?.tracked == true)
    }

    @Test func theOpenAPIDocumentListsEveryRuleAndSeverity() throws {
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.bytes)) as? [String: Any])
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let check = schemas?["PayloadCheck"] as? [String: Any]
        let finding = ((check?["properties"] as? [String: Any])?["findings"] as? [String: Any])?["items"]
        let properties = (finding as? [String: Any])?["properties"] as? [String: [String: Any]]
        #expect(properties?["rule"]?["enum"] as? [String] == PayloadCheck.Rule.allCases.map(\.rawValue))
        #expect(properties?["severity"]?["enum"] as? [String] == PayloadCheck.Severity.allCases.map(\.rawValue))
    }
}
