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
    #endif

    /// What the AEP extension sent once the user allowed notifications: the registration, with its params.
    func expectRegistration(app: String, userKey: String) async throws {
        let registration = try await mock.waitForRegistration(
            app: app, userKey: userKey, since: start, timeout: 30)[0]
        XCTAssertEqual(registration.params.first { $0.name == "plan" }?.value, "gold")

        let device = try await mock.device(token: registration.registrationToken)
        XCTAssertEqual(device?.device.osName, "iOS")
    }
}
