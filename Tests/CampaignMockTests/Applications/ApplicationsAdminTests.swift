import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockModel

@Suite("applications and devices through the admin API", .timeLimit(.minutes(2)))
struct ApplicationsAdminTests {
    @Test func startsTheDemoPairWhenNothingIsConfigured() throws {
        let live = try InProcessServer(inMemory: true)
        let apps = try live.json("GET", "/_mock/apps").object["apps"] as? [[String: Any]]
        #expect(
            apps?.compactMap { $0["integrationKey"] as? String }.sorted()
                == ["campaign-mock-demo-android", "campaign-mock-demo-ios"])
        #expect(live.app.banner().contains("integration key campaign-mock-demo-ios"))
    }

    /// `--app ios:KEY:NAME:BUNDLE_ID` and `android:KEY:NAME:PACKAGE`: stored, and named in the banner.
    @Test func theAppFlagsFourthPartIsTheBundleIdOrPackageName() throws {
        let configuration = try Configuration.resolve(
            flags: ["apps": "ios:shop-ios:Shop:com.example.shop\nandroid:shop-android::com.example.shop"],
            environment: [:], configFile: nil)
        let live = try InProcessServer(inMemory: true) { $0.applications = configuration.applications }
        let apps = try #require(live.json("GET", "/_mock/apps").object["apps"] as? [[String: Any]])
        #expect(
            apps.first { $0["integrationKey"] as? String == "shop-ios" }?["bundleId"] as? String == "com.example.shop")
        #expect(
            apps.first { $0["integrationKey"] as? String == "shop-android" }?["packageName"] as? String
                == "com.example.shop")
        let banner = live.app.banner()
        #expect(banner.contains("integration key shop-ios, bundle id com.example.shop"))
        #expect(banner.contains("integration key shop-android, package com.example.shop"))
    }

    @Test func addsUpdatesAndRemovesApplications() throws {
        let live = try InProcessServer(inMemory: true)
        let created = try live.json(
            "POST", "/_mock/apps", body: #"{"platform":"android","integrationKey":"k1","name":"Shop"}"#)
        #expect(created.status == 201)
        #expect(created.object["enabled"] as? Bool == true)

        let duplicate = try live.json("POST", "/_mock/apps", body: #"{"platform":"ios","integrationKey":"k1"}"#)
        #expect(duplicate.status == 409)
        #expect((duplicate.object["error"] as? String)?.contains("exists already") == true)

        let badPlatform = try live.json("POST", "/_mock/apps", body: #"{"platform":"windows","integrationKey":"k2"}"#)
        #expect(badPlatform.status == 400)
        #expect(badPlatform.object["error"] as? String == "platform must be 'ios' or 'android', got 'windows'")
        #expect(
            try live.json("POST", "/_mock/apps", body: #"{"platform":"ios"}"#).object["error"] as? String
                == "missing field 'integrationKey'")
        #expect(try live.json("POST", "/_mock/apps", body: "{nope").status == 400)
        #expect(
            try live.json("POST", "/_mock/apps", body: #"{"platform":"ios","integrationKey":"has space"}"#).status
                == 400)

        let disabled = try live.json("PUT", "/_mock/apps/k1", body: #"{"enabled":false}"#)
        #expect(disabled.status == 200)
        #expect(disabled.object["enabled"] as? Bool == false)
        let refused = try live.request(
            "POST", "/nms/mobile/1/registerAndroid.jssp", body: "registrationToken=t&mobileAppUuid=k1",
            headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(refused.status == 403)
        #expect(refused.body == "Application Shop is disabled")

        #expect(try live.json("DELETE", "/_mock/apps/k1").status == 200)
        #expect(try live.json("DELETE", "/_mock/apps/k1").status == 404)
        #expect(try live.json("PUT", "/_mock/apps/k1", body: #"{"enabled":true}"#).status == 404)
    }

    @Test func removingAnApplicationRemovesItsDevices() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        #expect(try live.json("DELETE", "/_mock/apps/testIntegrationKey").status == 200)
        #expect(try live.storedRows() == [0, 0, 0])
    }

    @Test func filtersDevicesByAppPlatformUserKeyTokenAndParams() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        let other = SDKBodies.android.replacingOccurrences(of: "testToken", with: "second")
            .replacingOccurrences(of: "value%3D%22value%22", with: "value%3D%22other%22")
        #expect(try live.register(.android, other).status == 200)

        func tokens(_ query: String) throws -> [String] {
            let page = try live.json("GET", "/_mock/devices" + (query.isEmpty ? "" : "?" + query))
            return (page.object["devices"] as? [[String: Any]])?.compactMap { $0["registrationToken"] as? String } ?? []
        }
        // Newest first, as the console shows them; `after` reads oldest first.
        #expect(try tokens("") == ["second", "testToken", "70757368546f6b656e"])
        #expect(try tokens("after=0") == ["70757368546f6b656e", "testToken", "second"])
        #expect(try tokens("platform=android") == ["second", "testToken"])
        #expect(try tokens("app=integrationKey") == ["70757368546f6b656e"])
        #expect(try tokens("userKey=userkey") == ["70757368546f6b656e"])
        #expect(try tokens("token=second") == ["second"])
        #expect(try tokens("param.key=other") == ["second"])
        #expect(try tokens("param.userPoints=3233&param.email=email%40email.com") == ["70757368546f6b656e"])
        #expect(try tokens("param.userPoints=1") == [])
        #expect(try tokens("limit=2").count == 2)
        #expect(try live.json("GET", "/_mock/devices?colour=red").status == 400)
        #expect(try live.json("GET", "/_mock/devices?platform=tv").status == 400)

        let one = try live.json("GET", "/_mock/devices/testToken")
        #expect(one.status == 200)
        #expect((one.object["history"] as? [Any])?.count == 1)
        #expect(try live.json("GET", "/_mock/devices/unknown").status == 404)
    }

    @Test func asksForTheAppWhenATokenIsInSeveralApplications() throws {
        let live = try InProcessServer.withSDKApplications { configuration in
            configuration.applications?.append(
                Application(name: "Second", platform: .android, integrationKey: "second"))
        }
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        let again = SDKBodies.android.replacingOccurrences(
            of: "mobileAppUuid=testIntegrationKey", with: "mobileAppUuid=second")
        #expect(try live.register(.android, again).status == 200)
        #expect(try live.json("GET", "/_mock/devices/testToken").status == 409)
        #expect(try live.json("GET", "/_mock/devices/testToken?app=second").status == 200)
    }
}
