import CampaignMockHTTP
import CampaignMockNetwork
import CampaignMockSystem
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockModel
@testable import CampaignMockStorage

/// The exact request bodies of docs/protocol.md §3.5.
enum SDKBodies {
    static let iOS =
        "registrationToken=70757368546f6b656e&mobileAppUuid=integrationKey&userKey=userkey&deviceName=iPhone"
        + "&deviceModel=iPhone&deviceBrand=Apple&deviceManufacturer=Apple&osName=iOS&osVersion=iOS%2017.0"
        + "&osLanguage=en-US&additionalParams=%3CadditionalParams%3E%3Cparam%20name%3D%22email%22%20value%3D%22"
        + "email%40email.com%22%20%2F%3E%3Cparam%20name%3D%22userPoints%22%20value%3D%223233%22%20%2F%3E%3C%2F"
        + "additionalParams%3E"
    static let android =
        "registrationToken=testToken&mobileAppUuid=testIntegrationKey&userKey=testUser&deviceImei=12345"
        + "&deviceName=mockDevice&deviceModel=mockDeviceName&deviceBrand=mockDeviceBrand"
        + "&deviceManufacturer=mockDeviceManufacturer&osName=android&osVersion=mockOSName%20mockOSVersion"
        + "&osLanguage=mocklocale&additionalParams=%3CadditionalParameters%3E%3Cparam%20name%3D%22key%22%20"
        + "value%3D%22value%22%2F%3E%3C%2FadditionalParameters%3E"
    static let contentType = "application/x-www-form-urlencoded;charset=UTF-8"

    /// The applications the SDK tests use, plus a disabled one.
    static let applications = [
        Application(name: "SDK iOS test app", platform: .ios, integrationKey: "integrationKey"),
        Application(name: "SDK Android test app", platform: .android, integrationKey: "testIntegrationKey"),
        Application(name: "Paused app", platform: .ios, integrationKey: "pausedKey", enabled: false),
    ]
}

extension TestServer {
    /// A server with the SDK test applications.
    static func withSDKApplications(_ adjust: (inout Configuration) -> Void = { _ in }) throws -> Self {
        try Self(inMemory: true, directory: nil, logger: .silent) { configuration in
            configuration.applications = SDKBodies.applications
            adjust(&configuration)
        }
    }

    func register(_ platform: Platform, _ body: String, contentType: String = SDKBodies.contentType) throws
        -> (status: Int, headers: [String: String], body: String)
    {
        let path = platform == .ios ? "/nms/mobile/1/registerIOS.jssp" : "/nms/mobile/1/registerAndroid.jssp"
        return try request("POST", path, body: body, headers: ["Content-Type": contentType])
    }

    /// Devices, their params and registrations, to show a refused request changed nothing.
    func storedRows() throws -> [Int64] {
        try app.store.read { reader in
            try [
                "SELECT count(*) FROM devices", "SELECT count(*) FROM devices d, json_each(d.params)",
                "SELECT count(*) FROM registrations",
            ].map { sql in try reader.connection.scalar(sql).integer ?? -1 }
        }
    }

    func device(_ token: String) throws -> DeviceSubscription? {
        try app.store.read { try $0.devices(token: token, applicationKey: nil).first }
    }

    func lastJournalEntry() throws -> JournalEntry? {
        try app.store.read { try $0.journalPage(after: 0, limit: 1000).requests.last }
    }
}

@Suite("registration endpoints, docs/product.md §3.1", .timeLimit(.minutes(2)))
struct RegistrationEndpointTests {
    @Test func registersTheIOSRequestOfTheSDKTest() throws {
        let live = try InProcessServer.withSDKApplications()
        let response = try live.register(.ios, SDKBodies.iOS)
        #expect(response.status == 200)
        #expect(response.body == "OK")
        #expect(response.headers["content-type"] == "text/plain; charset=utf-8")

        let device = try #require(try live.device("70757368546f6b656e"))
        #expect(device.application.integrationKey == "integrationKey")
        #expect(device.userKey == "userkey")
        #expect(
            device.device
                == DeviceFields(
                    deviceName: "iPhone", deviceModel: "iPhone", deviceBrand: "Apple", deviceManufacturer: "Apple",
                    osName: "iOS", osVersion: "iOS 17.0", osLanguage: "en-US"))
        #expect(
            device.params == [
                AdditionalParam(name: "email", value: "email@email.com", kind: .string),
                AdditionalParam(name: "userPoints", value: "3233", kind: .integer),
            ])
        #expect(device.history?.map(\.changes) == [["new"]])
        #expect(try live.lastJournalEntry()?.appKey == "integrationKey")
        #expect(try live.lastJournalEntry()?.endpoint == "registration-ios")
    }

    @Test func registersTheAndroidRequestOfTheSDKTest() throws {
        let live = try InProcessServer.withSDKApplications()
        let response = try live.register(.android, SDKBodies.android)
        #expect(response.status == 200)
        #expect(response.body == "OK")
        let device = try #require(try live.device("testToken"))
        #expect(device.userKey == "testUser")
        #expect(device.device.deviceImei == "12345")
        #expect(device.device.osVersion == "mockOSName mockOSVersion")
        #expect(device.device.osLanguage == "mocklocale")
        #expect(device.params == [AdditionalParam(name: "key", value: "value")])
    }

    /// An app that passes an empty key makes the Android SDK send `name=""`: the device is registered
    /// with its other params, as a server mapping names to fields would do.
    @Test func aParamWithAnEmptyNameIsIgnoredNotRefused() throws {
        let live = try InProcessServer.withSDKApplications()
        let body = SDKBodies.android.replacingOccurrences(
            of: "%3Cparam%20name%3D%22key%22",
            with: "%3Cparam%20name%3D%22%22%20value%3D%22x%22%2F%3E%3Cparam%20name%3D%22key%22")
        #expect(body != SDKBodies.android)
        let response = try live.register(.android, body)
        #expect(response.status == 200)
        #expect(try #require(try live.device("testToken")).params == [AdditionalParam(name: "key", value: "value")])
    }

    @Test func anUpdateKeepsOneDeviceAndRecordsWhatChanged() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let newUser = SDKBodies.iOS.replacingOccurrences(of: "userKey=userkey", with: "userKey=someone%40example.com")
        #expect(try live.register(.ios, newUser).status == 200)
        let newParams = newUser.replacingOccurrences(of: "3233", with: "3300")
        #expect(try live.register(.ios, newParams).status == 200)
        let newOS = newParams.replacingOccurrences(of: "iOS%2017.0", with: "iOS%2018.1")
        #expect(try live.register(.ios, newOS).status == 200)
        let refreshed = newOS.replacingOccurrences(of: "70757368546f6b656e", with: "6e6577746f6b656e")
        #expect(try live.register(.ios, refreshed).status == 200)

        let device = try #require(try live.device("70757368546f6b656e"))
        #expect(device.userKey == "someone@example.com")
        #expect(device.registrationCount == 5)
        #expect(device.history?.map(\.changes) == [["new"], ["unchanged"], ["userKey"], ["params"], ["device"]])
        #expect(device.history?[2].userKey == "someone@example.com")
        #expect(device.history?[1].params.last?.value == "3233")
        #expect(device.history?[3].params.last?.value == "3300")
        #expect(try live.device("6e6577746f6b656e")?.history?.map(\.changes) == [["new"]])
        #expect(try live.storedRows()[0] == 2)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let platform: Platform
        let body: String
        var contentType = SDKBodies.contentType
        let status: Int
        let reply: String
        var appKey: String?
        var testDescription: String { "\(name) → \(status)" }
    }

    static let refusals: [Refusal] = [
        .init(
            name: "mobileAppUuid missing", platform: .ios,
            body: SDKBodies.iOS.replacingOccurrences(of: "mobileAppUuid=integrationKey&", with: ""),
            status: 400, reply: "Missing integration key (mobileAppUuid)"),
        .init(
            name: "mobileAppUuid empty", platform: .ios,
            body: SDKBodies.iOS.replacingOccurrences(of: "mobileAppUuid=integrationKey", with: "mobileAppUuid="),
            status: 400, reply: "Missing integration key (mobileAppUuid)"),
        .init(
            name: "unknown mobileAppUuid", platform: .ios,
            body: SDKBodies.iOS.replacingOccurrences(of: "mobileAppUuid=integrationKey", with: "mobileAppUuid=nope"),
            status: 404, reply: "Unknown integration key (mobileAppUuid): nope", appKey: "nope"),
        .init(
            name: "iOS key on the Android endpoint", platform: .android, body: SDKBodies.iOS,
            status: 400, reply: "Integration key integrationKey belongs to an iOS application", appKey: "integrationKey"
        ),
        .init(
            name: "Android key on the iOS endpoint", platform: .ios, body: SDKBodies.android,
            status: 400, reply: "Integration key testIntegrationKey belongs to an Android application",
            appKey: "testIntegrationKey"),
        .init(
            name: "application disabled", platform: .ios,
            body: SDKBodies.iOS.replacingOccurrences(
                of: "mobileAppUuid=integrationKey", with: "mobileAppUuid=pausedKey"),
            status: 403, reply: "Application Paused app is disabled", appKey: "pausedKey"),
        .init(
            name: "registrationToken missing", platform: .ios,
            body: SDKBodies.iOS.replacingOccurrences(of: "registrationToken=70757368546f6b656e&", with: ""),
            status: 400, reply: "Missing registrationToken", appKey: "integrationKey"),
        .init(
            name: "registrationToken empty", platform: .ios,
            body: SDKBodies.iOS.replacingOccurrences(
                of: "registrationToken=70757368546f6b656e", with: "registrationToken="),
            status: 400, reply: "Missing registrationToken", appKey: "integrationKey"),
        .init(
            name: "bad percent-encoding", platform: .ios,
            body: SDKBodies.iOS.replacingOccurrences(of: "userKey=userkey", with: "userKey=user%4"),
            status: 400, reply: "malformed percent-encoding in parameter 'userKey'"),
        .init(
            name: "duplicate parameter", platform: .ios, body: SDKBodies.iOS + "&userKey=again",
            status: 400, reply: "parameter 'userKey' appears more than once"),
        .init(
            name: "bad XML", platform: .ios,
            body: SDKBodies.iOS.replacingOccurrences(of: "%3C%2FadditionalParams%3E", with: ""),
            status: 400, reply: "additionalParams: unterminated element <additionalParams> (at byte 104)",
            appKey: "integrationKey"),
        .init(
            name: "duplicate params", platform: .android,
            body: SDKBodies.android.replacingOccurrences(
                of: "%3C%2FadditionalParameters%3E",
                with: "%3Cparam%20name%3D%22key%22%20value%3D%22again%22%2F%3E%3C%2FadditionalParameters%3E"),
            status: 400, reply: "additionalParams: param 'key' appears more than once",
            appKey: "testIntegrationKey"),
        .init(
            name: "a DTD", platform: .android,
            body: SDKBodies.android.replacingOccurrences(
                of: "additionalParams=", with: "additionalParams=%3C!DOCTYPE%20x%3E"),
            status: 400, reply: "additionalParams: DTDs and entity declarations are not accepted (at byte 0)",
            appKey: "testIntegrationKey"),
        .init(
            name: "JSON content type", platform: .ios, body: "{}", contentType: "application/json",
            status: 415, reply: "Expected Content-Type application/x-www-form-urlencoded, got 'application/json'"),
    ]

    @Test("a refused registration gets its status and body and changes nothing", arguments: refusals)
    func refusesAndChangesNothing(_ refusal: Refusal) throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(
            try live.register(.android, SDKBodies.android.replacingOccurrences(of: "testToken", with: "other")).status
                == 200)
        let before = try live.storedRows()
        let response = try live.register(refusal.platform, refusal.body, contentType: refusal.contentType)
        #expect(response.status == refusal.status)
        #expect(response.body == refusal.reply)
        #expect(response.headers["content-type"] == "text/plain; charset=utf-8")
        #expect(try live.storedRows() == before)
        let journaled = try #require(try live.lastJournalEntry())
        #expect(journaled.status == refusal.status)
        #expect(journaled.reason?.hasPrefix(refusal.reply) == true)
        #expect(journaled.appKey == refusal.appKey)
    }

    /// The app gets the documented body; the developer reading the journal (or the log) also learns which
    /// keys this server knows and how to make it accept the one the app sent.
    @Test func anUnknownKeyIsJournaledWithTheKnownKeysAndTheFlag() throws {
        let live = try InProcessServer.withSDKApplications()
        let body = SDKBodies.iOS.replacingOccurrences(of: "mobileAppUuid=integrationKey", with: "mobileAppUuid=typo")
        #expect(try live.register(.ios, body).body == "Unknown integration key (mobileAppUuid): typo")
        let reason = try #require(try live.lastJournalEntry()?.reason)
        let known = "the ios keys are pausedKey (Paused app), integrationKey (SDK iOS test app)"
        #expect(reason.contains(known), "\(reason)")
        #expect(!reason.contains("testIntegrationKey"), "only the keys of the endpoint's platform: \(reason)")
        #expect(reason.hasSuffix("start with --app ios:<that key> or POST /_mock/apps to accept it"), "\(reason)")
        // The key once: the reason is what the log and the journal keep of it.
        #expect(reason.components(separatedBy: "typo").count == 2, "\(reason)")
    }

    @Test func answersOtherMethodsWith405AndAllow() throws {
        let live = try InProcessServer.withSDKApplications()
        let response = try live.request("GET", "/nms/mobile/1/registerIOS.jssp")
        #expect(response.status == 405)
        #expect(response.headers["allow"] == "POST")
        #expect(try live.lastJournalEntry()?.status == 405)
    }

    @Test func answersAnOversizedBodyWith413() throws {
        let live = try InProcessServer.withSDKApplications { $0.http.limits.bodyBytes = 1024 }
        let body = SDKBodies.iOS.replacingOccurrences(
            of: "userKey=userkey", with: "userKey=" + String(repeating: "a", count: 2000))
        let response = try live.register(.ios, body)
        #expect(response.status == 413)
        #expect(try live.storedRows() == [0, 0, 0])
    }

    @Test func storesRawUTF8LettersAsIOSSendsThem() throws {
        let live = try LiveServer.withSDKApplications()
        let client = try RawHTTPClient(port: live.port)
        let body = SDKBodies.iOS.replacingOccurrences(of: "deviceName=iPhone", with: "deviceName=iPhone de José 日本")
        try client.send(
            "POST /nms/mobile/1/registerIOS.jssp HTTP/1.1\r\nHost: m\r\nContent-Type: \(SDKBodies.contentType)\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        #expect(try client.readResponse().status == 200)
        #expect(try live.device("70757368546f6b656e")?.device.deviceName == "iPhone de José 日本")
    }
}
