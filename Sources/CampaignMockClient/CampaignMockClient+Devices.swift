import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A composed push on this machine's iOS simulator or Android emulator (`POST /_mock/push/{id}/simulator`,
/// `/emulator`): the test every push team writes composes a push, delivers it, taps it, and waits for the
/// receive and the open since its mark.
extension CampaignMockClient {
    /// What running `xcrun simctl push` or `adb shell am broadcast` on the server's machine gave.
    public struct DeviceToolRun: Sendable, Decodable, Equatable {
        /// The exact command, quoted as a shell would need it.
        public var command: String
        /// `succeeded`, `failed`, `timed-out` or `not-started`.
        public var outcome: String
        public var exitStatus: Int32?
        public var stdout: String
        public var stderr: String
        /// Why it failed; nil when it succeeded.
        public var error: String?
    }

    /// Puts the iOS message of push `id` (for `token` when it has several) on a booted simulator of the
    /// server's machine: `device` is `booted` or a simulator's UDID. A tool that fails is thrown as
    /// ``CampaignMockError/refused(method:path:status:message:)`` with what it printed.
    @discardableResult
    public func deliverToSimulator(push id: Int64, token: String? = nil, device: String = "booted")
        async throws -> DeviceToolRun
    {
        let body = try JSONEncoder().encode(["registrationToken": token, "device": device].compactMapValues { $0 })
        return try await decode(
            send("POST", "/_mock/push/\(id)/simulator", body: body, expecting: [200], timeout: 60))
    }

    /// Hands the Android message of push `id` (for `token` when it has several) to the app on an emulator
    /// of the server's machine (`serial`, or the only one running), as FCM would.
    @discardableResult
    public func deliverToEmulator(push id: Int64, token: String? = nil, serial: String? = nil)
        async throws -> DeviceToolRun
    {
        let body = try JSONEncoder().encode(["registrationToken": token, "serial": serial].compactMapValues { $0 })
        return try await decode(
            send("POST", "/_mock/push/\(id)/emulator", body: body, expecting: [200], timeout: 60))
    }
}
