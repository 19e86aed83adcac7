import CampaignMock
import CampaignMockClient
import CampaignMockHTTP
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server of its own for each test, in memory on a free port (the client speaks URLSession, so a socket),
/// and a client of it; `adminToken` is the server's `--admin-token` and the client's.
final class Mock {
    let server: LiveServer
    let url: URL
    let client: CampaignMockClient

    init(adminToken: String? = nil) throws {
        server = try LiveServer(inMemory: true) { $0.adminToken = adminToken }
        url = URL(string: "http://127.0.0.1:\(server.port)")!
        client = CampaignMockClient(url: url, adminToken: adminToken)
    }

    /// Sends what the SDK sends for a registration, with URLSession as an app would.
    func register(_ token: String, app: String = "campaign-mock-demo-ios", userKey: String = "", params: String = "")
        async throws -> Int
    {
        let path = app.contains("android") ? "registerAndroid" : "registerIOS"
        var request = URLRequest(url: url.appendingPathComponent("nms/mobile/1/\(path).jssp"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded;charset=UTF-8", forHTTPHeaderField: "Content-Type")
        var body = "registrationToken=\(token)&mobileAppUuid=\(app)&userKey=\(userKey)&deviceModel=iPhone15%2C2"
        if !params.isEmpty {
            body += "&additionalParams=" + (params.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
        request.httpBody = Data(body.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}

@Suite(.timeLimit(.minutes(2)))
struct CampaignMockClientTests {
    /// A server over HTTPS whose CA this machine does not trust: the error names the CA and how to trust it,
    /// not "cannot be reached".
    @Test func anUntrustedCertificateIsSaidAsSuch() async throws {
        let data = TemporaryDirectory()
        let server = try LiveServer(directory: data) { configuration in
            configuration.tls = "auto"
            configuration.tlsPort = 0
            configuration.certificateAuthorityFolder = data.path + "/ca"
        }
        let tlsPort = try #require(server.server.tlsAddress?.port)
        let client = CampaignMockClient(url: URL(string: "https://localhost:\(tlsPort)")!)
        do {
            _ = try await client.devices()
            Issue.record("a certificate from a CA this machine does not know was accepted")
        } catch let error as CampaignMockError {
            guard case .untrustedCertificate = error else {
                Issue.record("not said as an untrusted certificate: \(error)")
                return
            }
            #expect(error.description.contains("certificate is not trusted"))
            #expect(error.description.contains("network security config"))
            #expect(error.description.contains("add-root-cert"))
        }
    }

    @Test func trustsListsPushesAndRemovesADevice() async throws {
        let mock = try Mock()
        let client = mock.client
        try await client.waitUntilReady()
        #expect(try await mock.register("c0ffee") == 200)
        #expect(try await client.device(token: "c0ffee")?.trusted == false)
        #expect(try await client.isTrusted(token: "c0ffee") == false)
        #expect(try await client.setTrusted(true, token: "c0ffee").trusted)
        #expect(try await client.isTrusted(token: "c0ffee"))
        #expect(try await client.devices().items.first?.trusted == true)

        let push = try await client.push(PushRequest(token: "c0ffee", title: "Sale", body: "20% off"))
        try await client.simulateTracking(push.messages[0].tracking.receive)
        let pushes = try await client.pushes()
        #expect(pushes.items.map(\.id) == [push.id] && pushes.total == 1)
        #expect(pushes.items.first?.hits == ComposedPush.Hits(receive: 1, open: 0))

        let removed = try await client.deleteDevice(token: "c0ffee")
        #expect(removed.deleted.registrations == 1 && removed.deleted.eventsUnlinked == 1)
        #expect(removed.deleted.pushesKept == 1 && removed.trustRemoved)
        #expect(try await client.device(token: "c0ffee") == nil)
        #expect(try await client.pushes().total == 1)
        await #expect(throws: CampaignMockError.self) { try await client.deleteDevice(token: "c0ffee") }
    }

    @Test func waitsForARegistrationWithItsParamsThenReadsTheDevice() async throws {
        let mock = try Mock()
        let client = mock.client
        try await client.waitUntilReady()
        async let waited = client.waitForRegistration(
            app: "campaign-mock-demo-ios", params: ["plan": "gold"], timeout: 10)
        #expect(
            try await mock.register(
                "c0ffee", userKey: "jane%40example.com",
                params:
                    #"<additionalParams><param name="plan" value="gold"/><param name="points" value="42"/></additionalParams>"#
            )
                == 200)
        let registrations = try await waited
        #expect(registrations.map(\.registrationToken) == ["c0ffee"])
        #expect(registrations[0].platform == .ios)
        #expect(registrations[0].device.deviceModel == "iPhone15,2")
        #expect(registrations[0].params.first { $0.name == "points" }?.kind == .integer)

        let device = try #require(try await mock.client.device(token: "c0ffee"))
        #expect(device.userKey == "jane@example.com")
        #expect(device.param("plan")?.value == "gold")
        #expect(device.history?.count == 1)
        #expect(try await mock.client.device(token: "nope") == nil)
    }

    @Test func aWaitThatTimesOutSaysWhatItWaitedForAndWhatItSaw() async throws {
        let mock = try Mock()
        #expect(try await mock.register("other") == 200)
        do {
            _ = try await mock.client.waitForRegistration(userKey: "nobody", timeout: 0.3)
            Issue.record("the wait did not time out")
        } catch let error as CampaignMockError {
            guard case .timedOut(let what, let wanted, let seen, _, let filters) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(what == "registration" && wanted == 1 && seen == 0 && filters == ["userKey": "nobody"])
            #expect(error.description.contains("waited for 1 registration matching userKey=nobody, saw 0"))
        }
    }

    /// A team's suite, several tests in one run: each takes a mark, nothing is deleted. The device of the
    /// first test stays for the later ones; a later test that waits for a registration the SDK does not
    /// send again is told so, with the device and the AEP extension's rule.
    @Test func testsInOneRunEachWithItsMark() async throws {
        let mock = try Mock()
        let client = mock.client
        // Test 1: a fresh install registers.
        let first = try await client.mark()
        #expect(try await mock.register("c0ffee01", userKey: "jane") == 200)
        let registered = try await client.waitForRegistration(app: "campaign-mock-demo-ios", since: first, timeout: 5)
        #expect(registered.map(\.registrationToken) == ["c0ffee01"])
        try await client.requireNoFindings(atOrAbove: .info, since: first, wait: true)
        // Test 2: the installed app sends nothing; the device is still there.
        let second = try await client.mark()
        guard case .mark(let name) = second else {
            Issue.record("not a mark: \(second)")
            return
        }
        do {
            _ = try await client.waitForRegistration(app: "campaign-mock-demo-ios", since: second, timeout: 0.3)
            Issue.record("a registration from before the mark was counted")
        } catch let error as CampaignMockError {
            #expect(error.description.contains("since mark \(name)"), "\(error)")
            #expect(error.description.contains("token c0ffee01"), "\(error)")
            #expect(error.description.contains("sends no registration identical to its last one"), "\(error)")
        }
        #expect(try await client.device(token: "c0ffee01") != nil)
        // Test 3: a registration refused for a typo is this test's finding, not test 2's.
        let third = try await client.mark()
        #expect(try await mock.register("c0ffee01", app: "campaign-mock-demo-iso") == 404)
        #expect(try await client.checks(since: third).findings.map(\.rule) == ["registration-refused"])
        #expect(try await client.checks(severity: .info, since: second).findings.count == 1)
        await #expect(throws: CampaignMockError.self) {
            try await client.requireNoFindings(atOrAbove: .error, since: third)
        }
        // Only a reset that asks clears the findings; the device stays.
        #expect(try await client.reset(only: [.findings])["findings"] == 1)
        #expect(try await client.checks(severity: .info).findings.isEmpty)
        #expect(try await client.device(token: "c0ffee01") != nil)
    }

    @Test func listsPagesNewestFirstAndResets() async throws {
        let mock = try Mock()
        for index in 0..<250 { #expect(try await mock.register("t\(index)") == 200) }
        let first = try await mock.client.devices(limit: 100)
        #expect(first.total == 250 && first.items.first?.registrationToken == "t249")
        let second = try await mock.client.devices(limit: 100, before: first.nextCursor)
        #expect(second.items.first?.registrationToken == "t149")
        #expect(try await mock.client.devices(search: "T24").total == 11)
        let requests = try await mock.client.requests(endpoint: "registration-ios", limit: 1)
        #expect(requests.total == 250)
        #expect(requests.items[0].response?.body == "OK")
        let deleted = try await mock.client.reset()
        #expect(deleted["devices"] == 250)
        #expect(try await mock.client.devices().total == 0)
    }

    @Test func faultPresetsMakeTheSDKsFailuresAndAreListedAndCleared() async throws {
        let mock = try Mock()
        let rule = try await mock.client.addFault(.unknownIntegrationKey("campaign-mock-demo-ios"))
        #expect(rule.id != nil)
        _ = try await mock.client.addFault(.connectionDropped(.tracking))
        #expect(try await mock.register("x") == 404)
        let faults = try await mock.client.faults()
        #expect(faults.map(\.fired) == [1, 0])
        let failed = try await mock.client.waitForRequest(endpoint: "registration-ios", status: 404)
        #expect(failed[0].response?.body == "Unknown integration key (mobileAppUuid): campaign-mock-demo-ios")
        try await mock.client.removeFault(id: try #require(rule.id))
        #expect(try await mock.register("x") == 200)
        try await mock.client.clearFaults()
        #expect(try await mock.client.faults().isEmpty)
    }

    @Test func composesAPushAndSeesTheSDKsTrackingComeBackLinked() async throws {
        let mock = try Mock()
        #expect(try await mock.register(DeviceTokens.apns) == 200)
        let push = try await mock.client.push(
            PushRequest(token: DeviceTokens.apns, title: "Sale", variables: ["VAR": "x"]))
        let message = try #require(push.messages.first)
        #expect(message.apns?["_mId"]?.string == message.messageId)
        #expect(message.apns?["VAR"]?.string == "x")
        #expect(try await mock.client.push(id: push.id) == push)
        try await mock.client.simulateTracking(message.tracking.receive)
        try await mock.client.simulateTracking(message.tracking.open)
        let opens = try await mock.client.waitForEvent(.open, messageId: message.messageId)
        #expect(opens[0].linked?.registrationToken == DeviceTokens.apns)
        #expect(try await mock.client.events(token: DeviceTokens.apns).total == 2)
    }

    @Test func checksAPayloadAndAComposedPushCarriesItsCheck() async throws {
        let mock = try Mock()
        #expect(try await mock.register(DeviceTokens.apns) == 200)
        let push = try await mock.client.push(PushRequest(token: DeviceTokens.apns, title: "Sale"))
        #expect(push.messages.first?.check == PayloadCheck(findings: []))
        let check = try await mock.client.checkPayload(
            PayloadCheck.Request(apns: .object(["aps": .object(["alert": .string("Hi")]), "_mId": .number(1)])))
        #expect(check.errors == 2 && !check.tracked)
        #expect(check.findings.map(\.rule) == [.sdkMessageIDType, .sdkDeliveryIDMissing])
    }

    @Test func aSnapshotRestoresTheStore() async throws {
        let mock = try Mock()
        #expect(try await mock.register("keep-me") == 200)
        let snapshot = try await mock.client.snapshot()
        try await mock.client.reset()
        try await mock.client.restore(snapshot)
        #expect(try await mock.client.devices().items.map(\.registrationToken) == ["keep-me"])
        try await mock.client.addApplication(Application(name: "Shop", platform: .android, integrationKey: "shop-key"))
        #expect(try await mock.client.applications().contains { $0.integrationKey == "shop-key" })
    }

    @Test func theEventStreamIsAnAsyncSequence() async throws {
        let mock = try Mock()
        let stream = mock.client.stream(types: [.registration])
        let reader = Task {
            var tokens: [String] = []
            for try await event in stream {
                tokens.append(try event.decode(Registration.self).registrationToken)
                if tokens.count == 3 { break }
            }
            return tokens
        }
        // The stream is open once the server counts it; then three registrations.
        while await !streamIsOpen(mock) { try await Task.sleep(nanoseconds: 20_000_000) }
        for token in ["s1", "s2", "s3"] { #expect(try await mock.register(token) == 200) }
        #expect(try await reader.value == ["s1", "s2", "s3"])
    }

    private func streamIsOpen(_ mock: Mock) async -> Bool {
        guard let (data, _) = try? await URLSession.shared.data(from: mock.url.appendingPathComponent("_mock/metrics"))
        else { return false }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").contains("campaign_mock_event_streams 1")
    }

    /// The integration checks read the traffic as it commits: asks until `condition` holds (or a minute passes).
    private func report(_ mock: Mock, until condition: (CheckReport) -> Bool) async throws -> CheckReport {
        for _ in 0..<1200 {
            let report = try await mock.client.checks()
            if condition(report) { return report }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        throw RawClientError("the integration checks never found what the test sent")
    }

    @Test func requireNoFindingsFailsWithEachFindingsWordsAtOrAboveItsSeverity() async throws {
        let mock = try Mock()
        // The iOS app's devices call the same param `plan` and `Plan` (param-drift, a warning).
        let plan = { (name: String) in #"<additionalParams><param name="\#(name)" value="gold"/></additionalParams>"# }
        #expect(try await mock.register("ios-1", userKey: "a%40example.com", params: plan("plan")) == 200)
        #expect(try await mock.register("ios-2", userKey: "b%40example.com", params: plan("Plan")) == 200)
        // The iOS build registers its APNs token with the Android key (token-platform-mismatch, an error).
        #expect(
            try await mock.register(DeviceTokens.apns, app: "campaign-mock-demo-android", userKey: "c%40example.com")
                == 200)
        let report = try await report(mock) { $0.counts.error == 1 && $0.counts.warning == 1 }
        let mismatch = try #require(report.findings.first)
        #expect(mismatch.rule == "token-platform-mismatch" && mismatch.severity == .error)
        #expect(mismatch.app == "campaign-mock-demo-android" && mismatch.registrationToken == DeviceTokens.apns)
        #expect(report.findings.map(\.rule) == ["token-platform-mismatch", "param-drift"])

        do {
            try await mock.client.requireNoFindings(atOrAbove: .warning)
            Issue.record("no error for an error and a warning")
        } catch let error as CampaignMockError {
            #expect(error == .findings(atOrAbove: .warning, report.findings))
            let words = try #require(error.errorDescription)
            #expect(words.hasPrefix("campaign-mock's integration checks found 2 findings at or above warning"))
            for finding in report.findings {
                for part in [finding.rule, finding.title, finding.message, "Fix: \(finding.fix)", finding.doc] {
                    #expect(words.contains(part), "\(part) is not in: \(words)")
                }
            }
            #expect(words.contains("token \(DeviceTokens.apns)"))
        }
        do {
            try await mock.client.requireNoFindings(atOrAbove: .error)
            Issue.record("no error for an error")
        } catch CampaignMockError.findings(let severity, let findings) {
            #expect(severity == .error && findings == [mismatch])
        }
        // The iOS app has a warning only; the device ios-1 none.
        try await mock.client.requireNoFindings(atOrAbove: .error, app: "campaign-mock-demo-ios")
        await #expect(throws: CampaignMockError.self) {
            try await mock.client.requireNoFindings(atOrAbove: .warning, app: "campaign-mock-demo-ios")
        }
        try await mock.client.requireNoFindings(atOrAbove: .info, token: "ios-1")
        // The filters reach the server.
        #expect(try await mock.client.checks(severity: .error).findings == [mismatch])
        #expect(try await mock.client.checks(token: DeviceTokens.apns).findings == [mismatch])
        #expect(try await mock.client.checks(since: Date().addingTimeInterval(3600)).findings.isEmpty)
    }

    /// A finding quotes what a device sent (here an unknown integration key holding a window-title sequence,
    /// a line break and a GitHub workflow command): the error a CI log shows escapes it.
    @Test func requireNoFindingsEscapesWhatADeviceSent() async throws {
        let mock = try Mock()
        let hostile = "campaign-mock-demo-io%1B%5D0%3Bowned%07%0A%3A%3Aerror%3A%3Ax%7F%C2%85"
        #expect(try await mock.register("ios-1", app: hostile) == 404)
        _ = try await report(mock) { !$0.findings.isEmpty }
        do {
            try await mock.client.requireNoFindings(atOrAbove: .info)
            Issue.record("no error for a refused registration")
        } catch let error as CampaignMockError {
            let words = try #require(error.errorDescription)
            #expect(words.contains("campaign-mock-demo-io\\u{1B}]0;owned\\u{7}\\n::error::x\\u{7F}\\u{85}"), "\(words)")
            #expect(!words.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x7F })
            #expect(!words.split(separator: "\n").contains { $0.hasPrefix("::") })
        }
    }

    @Test func anAdminTokenIsSentAndAMissingOneIsNamed() async throws {
        let mock = try Mock(adminToken: "s3cret-token")
        #expect(try await mock.client.devices().total == 0)
        let without = CampaignMockClient(url: mock.url)
        do {
            _ = try await without.devices()
            Issue.record("accepted without the token")
        } catch let error as CampaignMockError {
            #expect(error.description.contains("401") && error.description.contains("--admin-token"))
        }
    }

    @Test func anUnreachableServerIsNamedWithTheFix() async throws {
        let client = try CampaignMockClient.fromEnvironment(["CAMPAIGN_MOCK_SERVER": "http://127.0.0.1:9"])
        #expect(await client.isReady() == false)
        do {
            _ = try await client.devices()
            Issue.record("no error")
        } catch let error as CampaignMockError {
            #expect(error.description.contains("cannot be reached"))
        }
        #expect(throws: CampaignMockError.badServerURL("ftp://x")) {
            try CampaignMockClient.fromEnvironment(["CAMPAIGN_MOCK_SERVER": "ftp://x"])
        }
    }

    /// A job sets `TEST_RUNNER_CAMPAIGN_MOCK_SERVER` for xcodebuild; the plain name wins over it.
    @Test func readsTheTestRunnerPrefixedVariables() throws {
        let prefixed = try CampaignMockClient.fromEnvironment([
            "TEST_RUNNER_CAMPAIGN_MOCK_SERVER": "http://127.0.0.1:9001",
            "TEST_RUNNER_CAMPAIGN_MOCK_ADMIN_TOKEN": "runner-token",
        ])
        #expect(prefixed.url.absoluteString == "http://127.0.0.1:9001")
        #expect(prefixed.adminToken == "runner-token")
        let both = try CampaignMockClient.fromEnvironment([
            "CAMPAIGN_MOCK_SERVER": "http://127.0.0.1:9002",
            "TEST_RUNNER_CAMPAIGN_MOCK_SERVER": "http://127.0.0.1:9001",
            "CAMPAIGN_MOCK_ADMIN_TOKEN": "plain-token", "TEST_RUNNER_CAMPAIGN_MOCK_ADMIN_TOKEN": "runner-token",
        ])
        #expect(both.url.absoluteString == "http://127.0.0.1:9002")
        #expect(both.adminToken == "plain-token")
        #expect(try CampaignMockClient.fromEnvironment([:]).url.absoluteString == "http://127.0.0.1:8080")
    }

    /// Every operation of the OpenAPI document is either called by the client or left out with a reason.
    @Test func coversTheAdminAPIsOperations() async throws {
        let mock = try Mock()
        let (data, _) = try await URLSession.shared.data(from: mock.url.appendingPathComponent("_mock/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let documented = Set(paths.flatMap { path, operations in operations.keys.map { "\($0) \(path)" } })
        let (covered, leftOut) = CampaignMockClient.operations
        #expect(covered.isDisjoint(with: leftOut.keys))
        #expect(
            covered.union(leftOut.keys) == documented,
            "new in the API: \(documented.subtracting(covered).subtracting(leftOut.keys))")
    }
}
