import CampaignMockSystem
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockModel

/// An application's bundle id (iOS) or package name (Android): set once, used by every push of the app.
@Suite("bundle ids and package names of applications", .timeLimit(.minutes(2)))
struct AppIdentifierTests {
    @Test(arguments: [
        (AppIdentifier.bundleID, "com.example.app", true), (.bundleID, "com.example-shop.App2", true),
        (.bundleID, "app", false), (.bundleID, "com..app", false), (.bundleID, "com.example.app.", false),
        (.bundleID, "com.ex ample", false), (.bundleID, "com.example;rm", false), (.bundleID, "com.exam_ple", false),
        (.packageName, "com.example.app", true), (.packageName, "com.example_shop.app2", true),
        (.packageName, "com.2example", false), (.packageName, "com.example-shop", false), (.packageName, "app", false),
        (.packageName, "com.example.app'", false),
    ])
    func acceptsOnlyReverseDNSNames(_ kind: AppIdentifier, _ text: String, _ accepted: Bool) {
        #expect(kind.accepts(text) == accepted)
    }

    @Test func setOnceThroughTheAdminAPIAndUsedByEveryPush() throws {
        let live = try InProcessServer.withSDKApplications()
        let set = try live.json("PUT", "/_mock/apps/integrationKey", body: #"{"bundleId":"com.example.shop"}"#)
        #expect(set.status == 200)
        #expect(set.object["bundleId"] as? String == "com.example.shop")
        #expect(set.object["name"] as? String == "SDK iOS test app")  // other fields unchanged
        #expect(
            try live.json("PUT", "/_mock/apps/testIntegrationKey", body: #"{"packageName":"com.example.shop"}"#)
                .status == 200)

        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        let ios = try #require(
            (try live.push(#"{"token":"70757368546f6b656e","title":"T"}"#).object["messages"] as? [[String: Any]])?
                .first)
        #expect(ios["bundleId"] as? String == "com.example.shop")
        #expect(
            ios["simctl"] as? String
                == "xcrun simctl push booted com.example.shop campaign-mock-\(ios["messageId"]!).apns")
        let file = try JSONSerialization.jsonObject(with: Data((ios["apnsFile"] as? String ?? "").utf8))
        #expect((file as? [String: Any])?["Simulator Target Bundle"] as? String == "com.example.shop")
        let android = try #require(
            (try live.push(#"{"token":"testToken","title":"T"}"#).object["messages"] as? [[String: Any]])?.first)
        #expect(android["packageName"] as? String == "com.example.shop")
        #expect((android["adb"] as? [String])?.first?.contains(" -p com.example.shop ") == true)

        // The push's own value wins over the application's.
        let named = try #require(
            (try live.push(#"{"token":"70757368546f6b656e","title":"T","bundleId":"com.other.app"}"#)
                .object["messages"] as? [[String: Any]])?.first)
        #expect(named["bundleId"] as? String == "com.other.app")

        // "" removes it; pushes then fall back to the placeholder.
        let cleared = try live.json("PUT", "/_mock/apps/integrationKey", body: #"{"bundleId":""}"#)
        #expect(cleared.status == 200)
        #expect(cleared.object["bundleId"] == nil)
        let placeholder = try #require(
            (try live.push(#"{"token":"70757368546f6b656e","title":"T"}"#).object["messages"] as? [[String: Any]])?
                .first)
        #expect(placeholder["bundleId"] == nil)
        #expect((placeholder["simctl"] as? String)?.contains("YOUR.BUNDLE.ID") == true)
    }

    @Test func refusesBadNamesAndTheOtherPlatformsField() throws {
        let live = try InProcessServer.withSDKApplications()
        let cases: [(String, String, String, String)] = [
            (
                "POST", "/_mock/apps", #"{"platform":"ios","integrationKey":"n1","bundleId":"shop"}"#,
                "bundleId 'shop' is not a reverse-DNS name like com.example.app (dot-separated letters, digits and '-')"
            ),
            (
                "POST", "/_mock/apps", #"{"platform":"android","integrationKey":"n2","bundleId":"com.example.app"}"#,
                "bundleId is for iOS applications; Android ones take packageName"
            ),
            (
                "PUT", "/_mock/apps/integrationKey", #"{"packageName":"com.example.app"}"#,
                "packageName is for Android applications; iOS ones take bundleId"
            ),
            (
                "PUT", "/_mock/apps/testIntegrationKey", #"{"packageName":"com.example.app; reboot"}"#,
                "packageName 'com.example.app; reboot' is not a reverse-DNS name like com.example.app "
                    + "(dot-separated parts that start with a letter, then letters, digits and '_')"
            ),
            (
                "POST", "/_mock/push", #"{"token":"t","title":"T","bundleId":"-x"}"#,
                "bundleId '-x' is not a reverse-DNS name like com.example.app (dot-separated letters, digits and '-')"
            ),
        ]
        for (method, path, body, message) in cases {
            let answer = try live.json(method, path, body: body)
            #expect(answer.status == 400, "\(body)")
            #expect(answer.object["error"] as? String == message)
        }
        let apps = try live.json("GET", "/_mock/apps").object["apps"] as? [[String: Any]] ?? []
        #expect(apps.allSatisfy { $0["bundleId"] == nil && $0["packageName"] == nil })
        #expect(try live.json("PUT", "/_mock/apps/nope", body: #"{"bundleId":"com.example.app"}"#).status == 404)
    }

    @Test func travelsInSnapshotsAndSurvivesARestart() throws {
        let directory = TemporaryDirectory()
        do {
            let live = try InProcessServer(inMemory: false, directory: directory)
            #expect(
                try live.json(
                    "POST", "/_mock/apps",
                    body: #"{"platform":"ios","integrationKey":"shop","bundleId":"com.example.shop"}"#
                ).status == 201)
        }
        let restarted = try InProcessServer(inMemory: false, directory: directory)
        let exported = try restarted.request("GET", "/_mock/state").body
        #expect(exported.contains(#""bundleId":"com.example.shop""#))

        let other = try InProcessServer(inMemory: true)
        #expect(try other.json("PUT", "/_mock/state", body: exported).status == 200)
        #expect(try other.request("GET", "/_mock/state").body == exported)
        let wrong = exported.replacingOccurrences(of: "com.example.shop", with: "shop")
        let refused = try other.json("PUT", "/_mock/state", body: wrong)
        #expect(refused.status == 400)
        #expect((refused.object["error"] as? String)?.contains("bundleId 'shop' is not a reverse-DNS name") == true)
    }

    @Test func readFromTheConfigFileObjectForm() throws {
        let json = #"""
            {"apps": [{"platform": "ios", "integrationKey": "A", "bundleId": "com.example.a"},
                      {"platform": "android", "integrationKey": "B", "packageName": "com.example.b"}]}
            """#
        let file = try Configuration.resolve(flags: [:], environment: [:], configFile: ("c.json", Array(json.utf8)))
        #expect(file.applications?.map(\.bundleId) == ["com.example.a", nil])
        #expect(file.applications?.map(\.packageName) == [nil, "com.example.b"])

        let wrong = #"{"apps": [{"platform": "android", "integrationKey": "B", "packageName": "b"}]}"#
        #expect(
            throws: ConfigurationError(
                "c.json: apps[0]: packageName 'b' is not a reverse-DNS name like com.example.app "
                    + "(dot-separated parts that start with a letter, then letters, digits and '_')")
        ) {
            try Configuration.resolve(flags: [:], environment: [:], configFile: ("c.json", Array(wrong.utf8)))
        }
        let notText = #"{"apps": [{"platform": "ios", "integrationKey": "A", "bundleId": 1}]}"#
        #expect(throws: ConfigurationError("c.json: apps[0]: bundleId must be a string")) {
            try Configuration.resolve(flags: [:], environment: [:], configFile: ("c.json", Array(notText.utf8)))
        }
    }
}
