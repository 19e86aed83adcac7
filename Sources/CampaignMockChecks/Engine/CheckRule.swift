/// The integration checks, by their stable ids (docs/checks.md has a section for each, under its id).
package enum CheckRule: String, CaseIterable, Sendable {
    case openWithoutReceive = "open-without-receive"
    case silentPushOpened = "silent-push-opened"
    case duplicateHit = "duplicate-hit"
    case unknownMessage = "unknown-message"
    case sentNotReceived = "sent-not-received"
    case registrationRefused = "registration-refused"
    case tokenPlatformMismatch = "token-platform-mismatch"
    case paramDrift = "param-drift"
    case userKeyMissing = "user-key-missing"
    case registrationStorm = "registration-storm"
    case faultActive = "fault-active"

    /// The section of docs/checks.md that explains it.
    package var doc: String { "docs/checks.md#" + rawValue }

    /// The finding's id for `subject`: stable while the finding lasts.
    func id(_ subject: String) -> String { rawValue + ":" + subject }
}
