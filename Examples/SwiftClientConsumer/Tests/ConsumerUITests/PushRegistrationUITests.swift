import CampaignMockClient
import XCTest

final class PushRegistrationUITests: XCTestCase {
    // CAMPAIGN_MOCK_SERVER: in CI, xcodebuild hands TEST_RUNNER_CAMPAIGN_MOCK_SERVER to the test runner under
    // that name (docs/ci.md); without it, http://127.0.0.1:8080, which the simulator reaches on the Mac.
    let mock = try! CampaignMockClient.fromEnvironment()
    /// Where this test starts: what the app sends after the mark is this test's. Nothing is deleted, so a
    /// device registered in an earlier test (the SDK does not register it again) stays.
    var start = Since.now

    override func setUp() async throws {
        try await mock.waitUntilReady(timeout: 10)
        start = try await mock.mark()
    }

    /// The integration checks read what the app sent during this test (after an open's 10 s for its
    /// receive): it fails on an error, in their words.
    override func tearDown() async throws {
        try await mock.requireNoFindings(atOrAbove: .error, since: start, wait: true)
    }

    #if os(iOS)
        // XCUIApplication is main-actor-isolated, and exists only in an iOS UI-test bundle.
        @MainActor
        func testAllowingNotificationsRegistersTheDevice() async throws {
            let app = XCUIApplication()
            app.launch()
            let alert = XCUIApplication(bundleIdentifier: "com.apple.springboard").alerts.firstMatch
            if alert.waitForExistence(timeout: 10) { alert.buttons["Allow"].tap() }

            // The app's integration key: your --app key (campaign-mock-demo-ios is the demo application's).
            try await expectRegistration(app: "campaign-mock-demo-ios", userKey: "jane@example.com")
        }

        /// The test every push team writes: compose a push for the app's device, deliver it to the
        /// simulator, tap it, and wait for the receive and the open since this test's mark.
        @MainActor
        func testATappedPushIsReceivedAndOpened() async throws {
            let app = XCUIApplication()
            app.launch()
            let messageId = try await deliverAPush(app: "campaign-mock-demo-ios")
            let banner = XCUIApplication(bundleIdentifier: "com.apple.springboard").otherElements["Notification"]
            if banner.waitForExistence(timeout: 10) { banner.tap() }
            try await expectTracking(of: messageId)
        }
    #endif

    /// Composes a push for the application's newest device (registered in this run, maybe by an earlier
    /// test) and puts it on the booted simulator; returns its message id.
    /// On the main actor, as the UI test that calls it (see expectRegistration).
    @MainActor
    func deliverAPush(app: String) async throws -> String {
        let token = try await mock.devices(app: app, limit: 1).items[0].registrationToken
        let push = try await mock.push(PushRequest(token: token, title: "Sale", body: "20% off"))
        try await mock.deliverToSimulator(push: push.id, token: token)
        return push.messages[0].messageId
    }

    /// The receive (the app's handler) and the open (the tap) of the message, since this test's mark.
    @MainActor
    func expectTracking(of messageId: String) async throws {
        _ = try await mock.waitForEvent(.receive, messageId: messageId, since: start, timeout: 30)
        _ = try await mock.waitForEvent(.open, messageId: messageId, since: start, timeout: 30)
    }

    /// What the AEP extension sent once the user allowed notifications: the registration, with its params.
    /// On the main actor, as the UI test that calls it: a nonisolated async method would take `self` (a test
    /// case, not Sendable) off the main actor, which Swift 6 refuses ("sending 'self' risks causing data races").
    @MainActor
    func expectRegistration(app: String, userKey: String) async throws {
        let registration = try await mock.waitForRegistration(
            app: app, userKey: userKey, since: start, timeout: 30)[0]
        XCTAssertEqual(registration.params.first { $0.name == "plan" }?.value, "gold")

        let device = try await mock.device(token: registration.registrationToken)
        XCTAssertEqual(device?.device.osName, "iOS")
    }
}
