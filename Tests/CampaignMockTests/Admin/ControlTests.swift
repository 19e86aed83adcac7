import CampaignMockHTTP
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockAdmin
@testable import CampaignMockModel
@testable import CampaignMockRuntime
@testable import CampaignMockSupport

@Suite("reset, state snapshots and metrics", .timeLimit(.minutes(2)))
struct ControlTests {
    /// Two applications' devices, events linked to a message, a journal and a fault rule.
    private func populated<Server: TestServer>(_ kind: Server.Type = InProcessServer.self) throws -> Server {
        let live = try Server.withSDKApplications()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(
            try live.register(.ios, SDKBodies.iOS.replacingOccurrences(of: "userKey=userkey", with: "userKey=x")).status
                == 200)
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        try live.issueMessage("-673096100", delivery: "7a3f1", token: "70757368546f6b656e")
        #expect(try live.request("GET", "/r/?id=hd7e15e5c,7a3f1,1", headers: ["User-Agent": "ua"]).status == 200)
        #expect(try live.request("GET", "/r/?id=h6b6499a8-9d43-4bc5-acf0-b6aeb96846f6,d,2").status == 200)
        _ = try live.addFault(#"{"endpoint":"soap","status":500,"appKey":"integrationKey"}"#)
        return live
    }

    @Test func resetsEverythingButTheApplications() throws {
        let live = try populated()
        let reset = try live.json("POST", "/_mock/reset")
        #expect(reset.status == 200)
        let deleted = reset.object["deleted"] as? [String: Int]
        // The findings of the checks go too (a hit for a message never composed).
        #expect(deleted == ["journal": 5, "events": 2, "devices": 2, "recipients": 0, "faults": 1, "findings": 1])
        #expect(try live.storedRows() == [0, 0, 0])
        #expect(try live.events().isEmpty)
        #expect((try live.json("GET", "/_mock/apps").object["apps"] as? [Any])?.count == 3)
        #expect(live.app.faults.rules.isEmpty)
    }

    @Test func resetsOnlySomePartsOrOneApplication() throws {
        let live = try populated()
        let journal = try live.json("POST", "/_mock/reset?only=journal")
        #expect(journal.object["deleted"] as? [String: Int] == ["journal": 5])
        #expect(try live.storedRows()[0] == 2)

        let ios = try live.json("POST", "/_mock/reset?only=devices,events,faults&app=integrationKey")
        #expect(ios.object["deleted"] as? [String: Int] == ["devices": 1, "events": 1, "faults": 1])
        #expect(try live.device("testToken") != nil)
        #expect(try live.device("70757368546f6b656e") == nil)
        #expect(try live.events().count == 1)

        #expect(try live.json("POST", "/_mock/reset?only=everything").status == 400)
        #expect(try live.json("POST", "/_mock/reset?app=nope").status == 404)
    }

    @Test func exportsImportsAndExportsTheSameState() throws {
        let live = try populated()
        let exported = try live.request("GET", "/_mock/state")
        #expect(exported.status == 200)

        let other = try InProcessServer(inMemory: true)
        let imported = try other.json("PUT", "/_mock/state", body: exported.body)
        #expect(imported.status == 200)
        #expect(imported.object["devices"] as? Int == 2)
        let again = try other.request("GET", "/_mock/state")
        #expect(again.body == exported.body)

        let event = try #require(try other.events("after=0").first)
        #expect((event["linked"] as? [String: Any])?["messageId"] as? String == "-673096100")
        #expect(try other.device("70757368546f6b656e")?.history?.count == 2)
        #expect(other.app.faults.rules.count == 1)
    }

    @Test func refusesABadSnapshotAndChangesNothing() throws {
        let live = try populated()
        let before = try live.request("GET", "/_mock/state").body
        let truncated = String(before.prefix(before.count / 2))
        let refused = try live.json("PUT", "/_mock/state", body: truncated)
        #expect(refused.status == 400)
        #expect(try live.request("GET", "/_mock/state").body == before)

        var document = try #require(try JSONSerialization.jsonObject(with: Data(before.utf8)) as? [String: Any])
        var devices = try #require(document["devices"] as? [[String: Any]])
        devices[1]["integrationKey"] = "ghost"
        document["devices"] = devices
        let dangling = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
        let unknownApp = try live.json("PUT", "/_mock/state", body: dangling)
        #expect(unknownApp.status == 400)
        #expect(
            (unknownApp.object["error"] as? String)?.contains("no application with integration key 'ghost'") == true)

        let badEvent = before.replacingOccurrences(of: "hd7e15e5c,7a3f1,1", with: "hzz,7a3f1,1")
        let refusedEvent = try live.json("PUT", "/_mock/state", body: badEvent)
        #expect((refusedEvent.object["error"] as? String)?.contains("events[0].rawId") == true)
        #expect(try live.request("GET", "/_mock/state").body == before)
    }

    /// The import slot is free the moment an import is answered, not only once the server lets go of the
    /// request: a test that sends its next snapshot as soon as the last one is answered never gets `409`.
    @Test func theImportSlotIsGivenBackBeforeTheAnswerWhileTheRequestLives() throws {
        let slot = ImportSlot()
        let request = HTTPRequest(method: .put, target: "/_mock/state")
        let lease = try slot.take(request)
        #expect(throws: AdminError.self) { try slot.take(request) }
        slot.giveBack(lease)
        // The request (and its lease) is still alive here, as it may be on the server after its answer.
        let next = try slot.take(request)
        withExtendedLifetime(lease) {}
        // A lease given back twice, or dropped after, frees nothing that another holds.
        slot.giveBack(lease)
        #expect(throws: AdminError.self) { try slot.take(request) }
        withExtendedLifetime(next) {}
    }

    /// What would cost memory out of proportion, or leave the fault rules behind the store, is refused by
    /// name before anything changes.
    @Test func refusesASnapshotOverItsLimitsAndChangesNothing() throws {
        let live = try populated()
        let before = try live.request("GET", "/_mock/state").body
        let document = try #require(try JSONSerialization.jsonObject(with: Data(before.utf8)) as? [String: Any])
        func importing(_ change: (inout [String: Any]) -> Void) throws -> String {
            var changed = document
            change(&changed)
            let body = String(decoding: try JSONSerialization.data(withJSONObject: changed), as: UTF8.self)
            let answer = try live.json("PUT", "/_mock/state", body: body)
            #expect(answer.status == 400)
            #expect(try live.request("GET", "/_mock/state").body == before)
            #expect(live.app.faults.rules.count == 1)
            return answer.object["error"] as? String ?? ""
        }

        // One rule more than the registry keeps: refused before the store is touched.
        let rule: [String: Any] = ["endpoint": "soap", "status": 500]
        let faults = try importing { $0["faults"] = Array(repeating: rule, count: FaultRegistry.limit + 1) }
        #expect(faults.contains("at most \(FaultRegistry.limit) fault rules"), "\(faults)")

        // One row larger than a row may be.
        let large = try importing { snapshot in
            var devices = snapshot["devices"] as! [[String: Any]]
            devices[1]["params"] = [["name": "blob", "value": String(repeating: "x", count: 9 << 20)]]
            snapshot["devices"] = devices
        }
        #expect(large.contains("devices[1] is over 8 MiB"), "\(large)")

        // A key longer than any the mock reads, and an object with more keys than any has.
        let longKey = try importing { $0["devices"] = [[String(repeating: "k", count: 2000): 1]] }
        #expect(longKey.contains("a key longer than 1024 bytes in 'devices.0'"), "\(longKey)")
        let manyKeys = try importing { snapshot in
            snapshot["events"] = [Dictionary(uniqueKeysWithValues: (0...1000).map { ("k\($0)", $0) })]
        }
        #expect(manyKeys.contains("an object with more than 1000 keys in 'events.0'"), "\(manyKeys)")
    }

    @Test func theMetricsCountTheListenersOpenConnections() throws {
        let live = try LiveServer(inMemory: true)
        let idle = try (0..<2).map { _ in try RawHTTPClient(port: live.port) }
        while live.server.openConnectionsForTesting < 2 { usleep(1000) }
        let text = try live.request("GET", "/_mock/metrics").body
        let line = text.split(separator: "\n").first { $0.hasPrefix("campaign_mock_open_connections ") }
        let count = try #require(line.flatMap { Int($0.split(separator: " ")[1]) })
        // The two idle clients and the one asking.
        #expect(count >= 3, "\(line ?? "")")
        _ = idle
    }

    @Test func exposesPrometheusMetrics() throws {
        let live = try populated(LiveServer.self)
        _ = try live.register(.ios, "mobileAppUuid=nope&registrationToken=t")
        let reader = try StreamReader(port: live.port)
        while live.app.stream.count < 1 { usleep(1000) }
        let text = try live.request("GET", "/_mock/metrics")
        _ = reader
        #expect(text.status == 200)
        #expect(text.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        for line in [
            "campaign_mock_requests_total{endpoint=\"registration-ios\",status=\"200\"} 2",
            "campaign_mock_requests_total{endpoint=\"registration-ios\",status=\"404\"} 1",
            "campaign_mock_registrations_total{result=\"accepted\"} 3",
            "campaign_mock_registrations_total{result=\"rejected\",reason=\"unknown_key\"} 1",
            "campaign_mock_tracking_events_total{tag=\"1\"} 1",
            "campaign_mock_tracking_events_total{tag=\"2\"} 1",
            "campaign_mock_journal_dropped_total 0",
            "campaign_mock_request_duration_seconds_count{endpoint=\"tracking\"} 2",
            "# TYPE campaign_mock_request_duration_seconds histogram",
            "campaign_mock_event_streams 1",
        ] {
            #expect(text.body.contains(line), "missing: \(line)")
        }
    }
}

@Suite("admin access", .timeLimit(.minutes(2)))
struct AdminAccessTests {
    private func request(_ path: String, from host: String, authorization: String? = nil) -> HTTPRequest {
        var headers: HTTPHeaders = [.host: "localhost:8080"]
        if let authorization { headers.append(.authorization, authorization) }
        return HTTPRequest(
            method: .get, target: path, headers: headers,
            remoteAddress: try? SocketAddress(parsing: host, port: 50000))
    }

    @Test func withoutATokenOnlyLoopbackIsServed() {
        let access = AdminAccess(token: nil)
        #expect(access.refusal(for: request("/_mock/devices", from: "127.0.0.1")) == nil)
        #expect(access.refusal(for: request("/_mock/devices", from: "::1")) == nil)
        #expect(access.refusal(for: request("/_mock/devices", from: "192.0.2.7"))?.status == .forbidden)
        #expect(access.refusal(for: request("/_mock/ready", from: "192.0.2.7")) == nil)
    }

    @Test func withATokenEveryClientNeedsIt() {
        let access = AdminAccess(token: "s3cret-token")
        #expect(
            access.refusal(for: request("/_mock/devices", from: "192.0.2.7", authorization: "Bearer s3cret-token"))
                == nil)
        #expect(access.refusal(for: request("/_mock/devices", from: "127.0.0.1"))?.status == .unauthorized)
        #expect(
            access.refusal(for: request("/_mock/devices", from: "127.0.0.1", authorization: "Bearer s3cret-tokeN"))?
                .status == .unauthorized)
        #expect(
            access.refusal(for: request("/_mock/devices", from: "127.0.0.1", authorization: "Basic x"))?.status
                == .unauthorized)
        #expect(access.refusal(for: request("/_mock/health", from: "192.0.2.7")) == nil)
        #expect(constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)))
        // Lengths 256 apart, the longer padded with NULs: the difference once folded into 8 bits.
        #expect(!constantTimeEqual(Array("abc".utf8), Array("abc".utf8) + [UInt8](repeating: 0, count: 256)))
        #expect(!constantTimeEqual([], [UInt8](repeating: 0, count: 512)))
    }

    @Test func theRouterRefusesARemoteClientWithoutToken() throws {
        let live = try InProcessServer(inMemory: true)
        let done = DispatchSemaphore(value: 0)
        let status = LockedCounter()
        let remote = request("/_mock/devices", from: "192.0.2.7")
        live.app.handle(
            remote,
            reply: ReplyChannel { reply in
                if case .response(let response) = reply { for _ in 0..<response.status.code { status.increment() } }
                done.signal()
            })
        done.wait()
        #expect(status.value == 403)
    }

    @Test func theTokenIsCheckedOverARealSocketAndTheSDKEndpointsStayOpen() throws {
        let live = try LiveServer.withSDKApplications { $0.adminToken = "s3cret-token" }
        #expect(try live.request("GET", "/_mock/devices").status == 401)
        #expect(
            try live.request("GET", "/_mock/devices", headers: ["Authorization": "Bearer wrong-token"]).status == 401)
        #expect(
            try live.request("GET", "/_mock/devices", headers: ["Authorization": "Bearer s3cret-token"]).status == 200)
        #expect(try live.request("GET", "/_mock/ready").status == 200)
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        // `/` is a Campaign path: its redirect to the console (whose files hold no data) needs no token.
        let root = try live.request("GET", "/")
        #expect(root.status == 200)
        #expect(root.headers["content-type"]?.hasPrefix("text/html") == true)
    }
}

@Suite("OpenAPI description", .timeLimit(.minutes(2)))
struct OpenAPITests {
    private static var document: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(OpenAPIDocument.bytes))) as? [String: Any] ?? [:]
    }

    @Test func isServedAndParses() throws {
        let live = try InProcessServer(inMemory: true)
        let served = try live.json("GET", "/_mock/openapi.json")
        #expect(served.status == 200)
        #expect(served.object["openapi"] as? String == "3.1.0")
    }

    /// The description's version is the product's, so a release never ships a stale one.
    @Test func carriesTheProductVersion() {
        let info = Self.document["info"] as? [String: Any]
        #expect(info?["version"] as? String == CampaignMockVersion.current)
    }

    @Test func documentsEveryAdminRouteAndNothingElse() throws {
        let live = try InProcessServer(inMemory: true)
        let routes = Set(
            live.app.routePatterns.filter { $0.pattern.hasPrefix("/_mock") }.map {
                "\($0.method?.rawValue.lowercased() ?? "any") \($0.pattern)"
            })
        let paths = Self.document["paths"] as? [String: [String: Any]] ?? [:]
        let documented = Set(paths.flatMap { path, operations in operations.keys.map { "\($0) \(path)" } })
        #expect(documented == routes)
    }

    @Test func everyDocumentedOperationAnswers() throws {
        let tools = try FakeTools()
        let live = try InProcessServer.withTools(tools)
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(
            try live.json("PUT", "/_mock/apps/integrationKey", body: #"{"bundleId":"com.example.app"}"#).status == 200)
        let paths = Self.document["paths"] as? [String: [String: Any]] ?? [:]
        // "/_mock/push" sorts before "/_mock/push/{id}", so the walk reads back the push it composed.
        var pushID = "none"
        for (path, operations) in paths.sorted(by: { $0.key < $1.key }) {
            // "/_mock/requests" (whose DELETE empties the journal) sorts first: journal one more request.
            var journalID = "none"
            if path == "/_mock/requests/{id}" {
                _ = try live.request("GET", "/nl/jsp/ping.jsp")
                let newest = try live.json("GET", "/_mock/requests?limit=1").object["requests"] as? [[String: Any]]
                journalID = String(newest?.first?["id"] as? Int ?? 0)
            }
            let concrete = path.replacingOccurrences(of: "{token}", with: "70757368546f6b656e")
                .replacingOccurrences(of: "{key}", with: "pausedKey")
                .replacingOccurrences(of: "{file}", with: "console.js")
                .replacingOccurrences(
                    of: "{id}",
                    with: path.hasPrefix("/_mock/push/")
                        ? pushID : path.hasPrefix("/_mock/requests/") ? journalID : "doc-rule")
            // The stream never ends by itself; StreamTests read it.
            if path == "/_mock/stream" { continue }
            let order = ["get", "post", "put", "delete"]
            for method in operations.keys.sorted(by: { order.firstIndex(of: $0)! < order.firstIndex(of: $1)! }) {
                var target = concrete
                var body: String?
                switch (method, path) {
                case ("get", "/_mock/wait"): target += "?for=registration&since=0&timeout=100ms"
                case ("post", "/_mock/apps"): body = #"{"platform":"ios","integrationKey":"new-key"}"#
                case ("put", "/_mock/apps/{key}"): body = #"{"enabled":true}"#
                case ("post", "/_mock/faults"): body = #"{"endpoint":"soap","status":500}"#
                case ("post", "/_mock/push"): body = #"{"token":"70757368546f6b656e","body":"Hello"}"#
                case ("post", "/_mock/push/check"): body = #"{"apns":{"aps":{"alert":"Hello"}}}"#
                case ("put", "/_mock/state"): body = try live.request("GET", "/_mock/state").body
                default: break
                }
                if method == "delete" && path == "/_mock/faults/{id}" {
                    _ = try live.addFault(#"{"endpoint":"soap","status":500,"id":"doc-rule"}"#)
                }
                let response = try live.request(method.uppercased(), target, body: body)
                // The operations after it (its trust, a push to it) need the device again.
                if method == "delete" && path == "/_mock/devices/{token}" {
                    #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
                }
                if path == "/_mock/push",
                    let object = try? JSONSerialization.jsonObject(with: Data(response.body.utf8)),
                    let id = (object as? [String: Any])?["id"] as? Int
                {
                    pushID = String(id)
                }
                let documented = (operations[method] as? [String: Any])?["responses"] as? [String: Any] ?? [:]
                #expect(documented[String(response.status)] != nil, "\(method) \(target) answered \(response.status)")
                // The walk resets the store before it waits, so the long poll times out (also documented).
                // This server runs without --tls auto, so it has no CA to hand out (documented too).
                // Its push is an iOS one, which an emulator does not take (DevicePushTests send one there).
                let expected =
                    path == "/_mock/wait"
                    ? [408]
                    : path == "/_mock/ca" ? [404] : path == "/_mock/push/{id}/emulator" ? [409] : Array(200..<300)
                #expect(
                    expected.contains(response.status),
                    "\(method) \(target) answered \(response.status): \(response.body)")
            }
        }
    }

    /// The registrations' counter reads how each one ended from types: the refusal's cause, a fault rule
    /// that answered in the endpoint's place, the store that could not keep it.
    @Test func registrationsAreCountedByHowTheyEnded() {
        let metrics = Metrics()
        let outcomes: [Metrics.RegistrationOutcome] = [
            .accepted, .accepted, .refused(.unknownIntegrationKey("k")), .refused(.missingRegistrationToken), .fault,
            .storeError, .status(503),
        ]
        for outcome in outcomes { metrics.recordRegistration(outcome) }
        let text = metrics.render(journalDropped: 0, openConnections: 0, waiters: 0)
        for line in [
            "campaign_mock_registrations_total{result=\"accepted\"} 2",
            "campaign_mock_registrations_total{result=\"rejected\",reason=\"unknown_key\"} 1",
            "campaign_mock_registrations_total{result=\"rejected\",reason=\"missing_token\"} 1",
            "campaign_mock_registrations_total{result=\"rejected\",reason=\"fault\"} 1",
            "campaign_mock_registrations_total{result=\"rejected\",reason=\"store_error\"} 1",
            "campaign_mock_registrations_total{result=\"rejected\",reason=\"status_503\"} 1",
        ] {
            #expect(text.contains(line), "missing: \(line)")
        }
    }
}
