import CampaignMock
import CampaignMockModel
import CampaignMockRuntime
import CampaignMockStorage
import CampaignMockSupport
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

/// The SDKs' id transformation (docs/protocol.md §4.2), written out here again so the test does not check
/// the server's encoder against itself.
private func sdkHex(_ messageID: String, ios: Bool) -> String {
    if messageID.count == 36 && messageID.filter({ $0 == "-" }).count == 4 { return messageID }
    let value = Int64(messageID)!
    if ios {
        let low = UInt32(truncatingIfNeeded: value)
        return low < 16 ? "0" + String(low, radix: 16) : String(low, radix: 16)
    }
    return value < 0 ? String(UInt32(bitPattern: Int32(value)), radix: 16) : String(value, radix: 16)
}

extension TestServer {
    func push(_ json: String) throws -> (status: Int, object: [String: Any]) {
        try self.json("POST", "/_mock/push", body: json)
    }
}

@Suite("push composition", .timeLimit(.minutes(2)))
struct PushCompositionTests {
    @Test(arguments: ["v7", "v7-negative", "v8", "v7-64"])
    func aComposedPushComesBackLinkedThroughTheSDKsTrackingHits(_ style: String) throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let answer = try live.push(
            #"{"token":"70757368546f6b656e","title":"Sale","body":"20% off","idStyle":"\#(style)"}"#)
        #expect(answer.status == 201)
        let message = try #require((answer.object["messages"] as? [[String: Any]])?.first)
        let apns = try #require(message["apns"] as? [String: Any])
        let messageID = try #require(apns["_mId"] as? String, "_mId must be a string")
        let deliveryID = try #require(apns["_dId"] as? String, "_dId must be a string")
        let hex = sdkHex(messageID, ios: true)
        #expect((message["tracking"] as? [String: String])?["receive"] == "/r/?id=h\(hex),\(deliveryID),1")

        #expect(try live.request("GET", "/r/?id=h\(hex),\(deliveryID),1").status == 200)
        #expect(try live.request("GET", "/r/?id=h\(hex),\(deliveryID),2").status == 200)
        let events = try live.events("token=70757368546f6b656e&after=0")
        #expect(events.map { $0["type"] as? String } == ["receive", "open"])
        for event in events {
            let link = try #require(event["linked"] as? [String: Any])
            #expect(link["messageId"] as? String == messageID)
            #expect(link["deliveryId"] as? String == deliveryID)
            #expect(link["integrationKey"] as? String == "integrationKey")
        }
        if style == "v7-64" {
            #expect((answer.object["warnings"] as? [String])?.first?.contains("low 32 bits") == true)
        }

        var client = SOAPTestClient(live: live)
        _ = try client.logon()
        let logs = try client.query(
            """
            <queryDef schema='nms:trackingLogAppSubRcp'><select><node expr='@tagId'/><node expr='@broadLog-id'/>\
            <node expr='[appSubscription/@registrationToken]'/></select><orderBy><node expr='@id'/></orderBy></queryDef>
            """)
        let rows = logs.output?.elements ?? []
        #expect(rows.map { $0.attribute("tagId") } == ["1", "2"])
        #expect(rows.map { $0.attribute("broadLog-id") } == [messageID, messageID])
        #expect(
            rows.map { $0.element("appSubscription")?.attribute("registrationToken") } == [
                "70757368546f6b656e", "70757368546f6b656e",
            ])

        let device = try #require(try live.device("70757368546f6b656e"))
        let lifecycle = try #require(device.messages?.first)
        #expect(lifecycle.messageId == messageID)
        #expect(lifecycle.receivedAt != nil && lifecycle.openedAt != nil)
        #expect(lifecycle.sentAt <= lifecycle.receivedAt! && lifecycle.receivedAt! <= lifecycle.openedAt!)
    }

    @Test func androidPushesAreFCMDataMessagesTrackedAsTheAndroidSDKEncodes() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        let answer = try live.push(
            #"{"token":"testToken","title":"Hi","body":"There","idStyle":"v7-negative","variables":{"url":"https://example.test"},"androidPackage":"com.example"}"#
        )
        #expect(answer.status == 201)
        let message = try #require((answer.object["messages"] as? [[String: Any]])?.first)
        let fcm = try #require((message["fcm"] as? [String: Any])?["message"] as? [String: Any])
        #expect(fcm["token"] as? String == "testToken")
        #expect(fcm["android"] as? [String: String] == ["priority": "high"], "a notification is delivered at once")
        let data = try #require(fcm["data"] as? [String: String], "FCM data values are all strings")
        #expect(data["_msg"] == "There")
        #expect(data["title"] == "Hi")
        #expect(data["url"] == "https://example.test")
        let messageID = try #require(data["_mId"])
        #expect(messageID.hasPrefix("-"))
        #expect((message["adb"] as? [String])?.first?.contains("-p com.example") == true)
        let hex = sdkHex(messageID, ios: false)
        #expect(try live.request("GET", "/r/?id=h\(hex),\(data["_dId"]!),1").status == 200)
        #expect((try live.events().first?["linked"] as? [String: Any])?["registrationToken"] as? String == "testToken")
    }

    @Test func theAPNsPayloadCarriesEveryField() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let answer = try live.push(
            #"""
            {"token":"70757368546f6b656e","title":"T","body":"B","sound":"chime.caf","badge":3,"category":"sale",
             "mediaUrl":"https://example.test/a.jpg","variables":{"VAR":"v","deeplink":"app://x"},"bundleId":"com.example.app"}
            """#)
        let message = try #require((answer.object["messages"] as? [[String: Any]])?.first)
        let apns = try #require(message["apns"] as? [String: Any])
        let aps = try #require(apns["aps"] as? [String: Any])
        #expect(aps["alert"] as? [String: String] == ["title": "T", "body": "B"])
        #expect(aps["sound"] as? String == "chime.caf")
        #expect(aps["badge"] as? Int == 3)
        #expect(aps["category"] as? String == "sale")
        #expect(aps["mutable-content"] as? Int == 1)
        #expect(aps["content-available"] == nil)
        #expect(apns["mediaUrl"] as? String == "https://example.test/a.jpg")
        #expect(apns["VAR"] as? String == "v")
        #expect(apns["deeplink"] as? String == "app://x")
        let file = try #require(message["apnsFile"] as? String)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(file.utf8)) as? [String: Any])
        #expect(parsed["Simulator Target Bundle"] as? String == "com.example.app")
        #expect(
            (message["simctl"] as? String)?.hasPrefix("xcrun simctl push booted com.example.app campaign-mock-") == true
        )
    }

    @Test func aSilentPushHasContentAvailableAndNoAlert() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        let ios = try live.push(#"{"token":"70757368546f6b656e","silent":true}"#)
        let aps = try #require(
            (((ios.object["messages"] as? [[String: Any]])?.first?["apns"]) as? [String: Any])?["aps"] as? [String: Any]
        )
        #expect(aps.keys.sorted() == ["content-available"])
        #expect(aps["content-available"] as? Int == 1)
        let android = try live.push(#"{"token":"testToken","silent":true}"#)
        let message = try #require((android.object["messages"] as? [[String: Any]])?.first)
        let data = try #require(
            ((message["fcm"] as? [String: Any])?["message"] as? [String: Any])?["data"] as? [String: String])
        #expect(data.keys.sorted() == ["_dId", "_mId"])
        #expect((message["adb"] as? [String])?.count == 1)
        #expect(
            ((message["fcm"] as? [String: Any])?["message"] as? [String: Any])?["android"] as? [String: String] == [
                "priority": "normal"
            ])
    }

    @Test(arguments: [
        (#","androidPriority":"normal""#, "normal"), (#","silent":true,"androidPriority":"high""#, "high"),
    ])
    func aPushNamesItsAndroidPriority(_ field: String, _ priority: String) throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        let answer = try live.push(#"{"token":"testToken","title":"Hi"\#(field)}"#)
        #expect(answer.status == 201, "\(answer.object)")
        let message = try #require((answer.object["messages"] as? [[String: Any]])?.first)
        let fcm = try #require((message["fcm"] as? [String: Any])?["message"] as? [String: Any])
        #expect(fcm["android"] as? [String: String] == ["priority": priority])
    }

    @Test func refusesAnAPNsPayloadOver4KB() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let answer = try live.push(#"{"token":"70757368546f6b656e","body":"\#(String(repeating: "x", count: 4100))"}"#)
        #expect(answer.status == 400)
        #expect((answer.object["error"] as? String)?.contains("APNs refuses more than 4096") == true)
        #expect(try live.app.store.read { try $0.connection.scalar("SELECT count(*) FROM messages").integer } == 0)
    }

    @Test func fansOutToEveryDeviceOfAUserInOneDelivery() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        #expect(
            try live.register(.android, SDKBodies.android.replacingOccurrences(of: "testToken", with: "tablet")).status
                == 200)
        let answer = try live.push(#"{"userKey":"testUser","app":"testIntegrationKey","body":"Hello"}"#)
        let messages = try #require(answer.object["messages"] as? [[String: Any]])
        #expect(messages.compactMap { $0["registrationToken"] as? String } == ["testToken", "tablet"])
        #expect(Set(messages.compactMap { $0["deliveryId"] as? String }) == [answer.object["deliveryId"] as? String])
        #expect(Set(messages.compactMap { $0["messageId"] as? String }).count == 2)

        let id = try #require(answer.object["id"] as? Int)
        let again = try live.request("GET", "/_mock/push/\(id)")
        #expect(again.status == 200)
        #expect(
            (try JSONSerialization.jsonObject(with: Data(again.body.utf8)) as? [String: Any])?["deliveryId"] as? String
                == answer.object["deliveryId"] as? String)
        #expect(try live.request("GET", "/_mock/push/999").status == 404)
    }

    @Test(arguments: [
        (#"{"title":"x"}"#, 400, "give token, or userKey with app"),
        (#"{"token":"t","userKey":"u","app":"a","title":"x"}"#, 400, "not both"),
        (#"{"userKey":"u","title":"x"}"#, 400, "userKey needs app"),
        (#"{"token":"70757368546f6b656e"}"#, 400, "needs a title or a body"),
        (#"{"token":"70757368546f6b656e","title":"x","variables":{"_mId":"1"}}"#, 400, "set by the mock"),
        (#"{"token":"unknown","title":"x"}"#, 404, "no registered device with token 'unknown'"),
        (#"{"token":"70757368546f6b656e","title":"x","idStyle":"v9"}"#, 400, "field 'idStyle' has an invalid value"),
        (
            #"{"token":"70757368546f6b656e","title":"x","androidPriority":"urgent"}"#, 400,
            "field 'androidPriority' has an invalid value: 'urgent' is not one of normal, high"
        ),
    ])
    func refusesBadRequests(_ json: String, _ status: Int, _ message: String) throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let answer = try live.push(json)
        #expect(answer.status == status)
        #expect((answer.object["error"] as? String)?.contains(message) == true, "\(answer.object)")
    }

    @Test func waitingForTheOpenOfAComposedMessageWorks() throws {
        let live = try LiveServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let answer = try live.push(#"{"token":"70757368546f6b656e","title":"T","idStyle":"v7-negative"}"#)
        let message = try #require((answer.object["messages"] as? [[String: Any]])?.first)
        let messageID = try #require(message["messageId"] as? String)
        let waiter = PendingRequest(port: live.port, target: "/_mock/wait?for=open&messageId=\(messageID)&timeout=10s")
        while live.app.waits.count == 0 { usleep(1000) }
        let open = try #require((message["tracking"] as? [String: String])?["open"])
        #expect(try live.request("GET", open).status == 200)
        #expect(try waiter.response().status == 200)
    }

    @Test func pushEventOnTheSOAPRouterComposesTheSamePush() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        var client = SOAPTestClient(live: live)
        _ = try client.logon()
        func event(_ channel: String, _ token: String, _ app: String) throws -> SOAPTestClient.Reply {
            try client.call(
                "nms:rtEvent", "PushEvent",
                """
                <urn:sessiontoken>\(client.token)</urn:sessiontoken><urn:domEvent><rtEvent wishedChannel="\(channel)" \
                type="rt_Sale" registrationToken="\(token)" xmlns=""><mobileApp uuid="\(app)" _operation="none"/>\
                <ctx><title>Flash sale</title><body>Today only</body><coupon>SAVE10</coupon></ctx></rtEvent></urn:domEvent>
                """)
        }
        let accepted = try event("41", "70757368546f6b656e", "integrationKey")
        #expect(accepted.status == 200)
        let plID = try #require(accepted.payload?.element("plId")?.text)
        #expect(Int(plID) ?? 0 > 0)
        let push = try live.json("GET", "/_mock/push/\(plID)")
        let apns = try #require(((push.object["messages"] as? [[String: Any]])?.first?["apns"]) as? [String: Any])
        #expect(
            (apns["aps"] as? [String: Any])?["alert"] as? [String: String] == [
                "title": "Flash sale", "body": "Today only",
            ])
        #expect(apns["coupon"] as? String == "SAVE10")

        #expect(try event("41", "nobody", "integrationKey").payload?.element("plId")?.text == "0")
        #expect(
            try live.lastJournalEntry()?.reason
                == "PushEvent: no registered device with token 'nobody' in integrationKey")
        #expect(try event("42", "70757368546f6b656e", "integrationKey").payload?.element("plId")?.text == "0")
        #expect(
            try live.lastJournalEntry()?.reason?.contains("wishedChannel 42 does not match an iOS application") == true)
        #expect(try event("41", "70757368546f6b656e", "ghost").payload?.element("plId")?.text == "0")
    }

    @Test func newMessageIDsSkipThoseRestoredFromASnapshotAndResetForgetsPushes() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        var state = try #require(
            try JSONSerialization.jsonObject(with: Data(live.request("GET", "/_mock/state").body.utf8))
                as? [String: Any])
        state["messages"] = ["1000003", "1000001"].map {
            ["messageId": $0, "deliveryId": "7a0ff", "createdAt": "2026-11-22T10:00:00.000Z"]
        }
        let body = String(decoding: try JSONSerialization.data(withJSONObject: state), as: UTF8.self)
        #expect(try live.request("PUT", "/_mock/state", body: body).status == 200)

        let answer = try live.push(#"{"token":"70757368546f6b656e","body":"Hello"}"#)
        let message = try #require((answer.object["messages"] as? [[String: Any]])?.first)
        #expect(message["messageId"] as? String == "1000004")
        let id = try #require(answer.object["id"] as? Int)
        #expect(try live.request("GET", "/_mock/push/\(id)").status == 200)

        #expect(try live.request("POST", "/_mock/reset?only=events").status == 200)
        #expect(try live.request("GET", "/_mock/push/\(id)").status == 404)
    }

    @Test func everyComposedMessageCarriesItsCheckAndKeepsItWhenReadBack() throws {
        let live = try InProcessServer.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        for (token, rules) in [("70757368546f6b656e", ["aps.background"]), ("testToken", [])] {
            let answer = try live.push(#"{"token":"\#(token)","silent":true}"#)
            let check = try #require((answer.object["messages"] as? [[String: Any]])?.first?["check"] as? [String: Any])
            #expect(check["errors"] as? Int == 0 && check["warnings"] as? Int == 0, "\(check)")
            #expect(check["tracked"] as? Bool == true)
            #expect((check["findings"] as? [[String: Any]])?.compactMap { $0["rule"] as? String } == rules)
            let id = try #require(answer.object["id"] as? Int)
            let again = try live.json("GET", "/_mock/push/\(id)")
            #expect((again.object["messages"] as? [[String: Any]])?.first?["check"] as? [String: Any] != nil)
        }
    }

    @Test func checksAPayloadBuiltElsewhere() throws {
        let live = try InProcessServer(inMemory: true)
        let apns = try live.json(
            "POST", "/_mock/push/check",
            body: #"{"apns":{"aps":{"alert":"Hi","badge":"3"},"_mId":1000001,"_dId":"7a001"}}"#)
        #expect(apns.status == 200)
        #expect(apns.object["errors"] as? Int == 2)
        #expect(apns.object["tracked"] as? Bool == false)
        let findings = try #require(apns.object["findings"] as? [[String: Any]])
        #expect(findings.compactMap { $0["rule"] as? String } == ["aps.badge.type", "sdk.mId.type"])
        #expect(findings.first?["severity"] as? String == "error")
        #expect(findings.first?["path"] as? String == "aps.badge")

        let fcm = try live.json(
            "POST", "/_mock/push/check",
            body: #"{"fcm":{"message":{"token":"t","notification":{"title":"Hi"},"data":{"_mId":"1","_dId":"7a001"}}}}"#
        )
        #expect(fcm.status == 200)
        #expect(fcm.object["errors"] as? Int == 0 && fcm.object["warnings"] as? Int == 1)
        #expect(fcm.object["tracked"] as? Bool == true)
    }

    @Test(arguments: [
        ("{}", "give apns (an APNs payload) or fcm"),
        (#"{"apns":{},"fcm":{}}"#, "not both"),
        (#"{"apns":"payload"}"#, "field 'apns' must be a JSON object"),
        (#"{"apns":null}"#, "field 'apns' is null"),
        (#"{"apn":{}}"#, "unknown field 'apn'"),
        ("", "expected a JSON body"),
    ])
    func refusesACheckRequestThatIsNotExactlyOnePayload(_ body: String, _ message: String) throws {
        let live = try InProcessServer(inMemory: true)
        let answer = try live.json("POST", "/_mock/push/check", body: body)
        #expect(answer.status == 400)
        #expect((answer.object["error"] as? String)?.contains(message) == true, "\(answer.object)")
    }
}
