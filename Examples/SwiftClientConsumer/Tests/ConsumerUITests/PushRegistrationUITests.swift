import CampaignMockClient
import XCTest

final class PushRegistrationUITests: XCTestCase {
    // CAMPAIGN_MOCK_SERVER: in CI, xcodebuild hands TEST_RUNNER_CAMPAIGN_MOCK_SERVER to the test runner under
    // that name (docs/ci.md); without it, http://127.0.0.1:8080, which the simulator reaches on the Mac.
    let mock = try! CampaignMockClient.fromEnvironment()

    override func setUp() async throws {
        try await mock.waitUntilReady(timeout: 10)
        try await mock.reset()
    }

    /// The integration checks read everything the app sent during the test: it fails on an error, in their words.
    override func tearDown() async throws {
        try await mock.requireNoFindings(atOrAbove: .error)
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
    #endif

    /// What the AEP extension sent once the user allowed notifications: the registration, with its params.
    /// On the main actor, as the UI test that calls it: a nonisolated async method would take `self` (a test
    /// case, not Sendable) off the main actor, which Swift 6 refuses ("sending 'self' risks causing data races").
    @MainActor
    func expectRegistration(app: String, userKey: String) async throws {
        let registration = try await mock.waitForRegistration(app: app, userKey: userKey, timeout: 30)[0]
        XCTAssertEqual(registration.params.first { $0.name == "plan" }?.value, "gold")

        let device = try await mock.device(token: registration.registrationToken)
        XCTAssertEqual(device?.device.osName, "iOS")
    }
}
