import CampaignMockHTTP
import CampaignMockModel
import CampaignMockPush
import CampaignMockStorage

/// `POST /_mock/push/{id}/simulator` and `/emulator`: a composed push on an iOS simulator or an Android
/// emulator of this machine, in one call; `GET /_mock/simulators` and `/_mock/emulators`: which are
/// running. The tools run off the event loops (``DeviceRunner``); the answer says what ran and what it
/// printed.
///
/// Each runs its tool only for a request carrying `Campaign-Mock-Client` (any value) or `Authorization`:
/// headers a page cannot send without a CORS preflight, which the mock never grants. A browser without Fetch
/// Metadata (Safari before 16.4, some in-app web views) sends a cross-site `<img>` GET with neither `Origin`
/// nor `Sec-Fetch-Site`, which the admin API's own test cannot tell from curl's; without the header, `428`.
extension AdminAPI {
    /// The header the console, the clients, the CLI and the docs' curl lines send to the routes that run a tool.
    static let clientHeader = HTTPHeaderName(rawValue: "Campaign-Mock-Client")

    /// Throws `428` unless `request` carries ``clientHeader`` or `Authorization`.
    private static func requireClientHeader(_ request: HTTPRequest) throws {
        guard request.headers[clientHeader] == nil && request.headers[.authorization] == nil else { return }
        throw AdminError(
            .preconditionRequired,
            "\(request.path) runs a tool on this machine: send the header 'Campaign-Mock-Client: <any value>' "
                + "(a web page cannot) or the --admin-token's Authorization")
    }

    func registerDevices(on group: inout RouteGroup) {
        group.add(.post, "/_mock/push/{id}/simulator", pushToSimulator)
        group.add(.post, "/_mock/push/{id}/emulator", sendToEmulator)
        group.add(.get, "/_mock/simulators", listSimulators)
        group.add(.get, "/_mock/emulators", listEmulators)
    }

    /// `{"registrationToken": "…", "device": "booted" | UDID}`, both optional.
    private struct SimulatorTarget: Codable {
        var registrationToken: String?
        var device: String?
    }

    /// `{"registrationToken": "…", "serial": "emulator-5554"}`, both optional.
    private struct EmulatorTarget: Codable {
        var registrationToken: String?
        var serial: String?
    }

    private func pushToSimulator(_ request: HTTPRequest, _ parameters: RouteParameters, _ reply: ReplyChannel) throws {
        try Self.requireClientHeader(request)
        let target = try Self.body(SimulatorTarget(), request)
        let message = try message(of: parameters, token: target.registrationToken, platform: .ios)
        let device = target.device ?? "booted"
        guard device == "booted" || Self.isUDID(device) else {
            throw AdminError(.badRequest, "device must be \"booted\" or a simulator's UDID, got '\(device.prefix(64))'")
        }
        let xcrun = try tool(.xcrun)
        let file = try payload { try DevicePayload.simulatorFile(of: message, store: store) }
        let devices = devices
        try run(devices) {
            let run = devices.pushToSimulator(xcrun: xcrun, file: file, device: device)
            reply.send(Self.answer(run))
        }
    }

    private func sendToEmulator(_ request: HTTPRequest, _ parameters: RouteParameters, _ reply: ReplyChannel) throws {
        try Self.requireClientHeader(request)
        let target = try Self.body(EmulatorTarget(), request)
        let message = try message(of: parameters, token: target.registrationToken, platform: .android)
        if let serial = target.serial, !Self.isSerial(serial) {
            throw AdminError(
                .badRequest, "serial '\(serial.prefix(64))' is not an adb serial (emulator-5554, HOST:PORT)")
        }
        let adb = try tool(.adb)
        let command = try payload { try DevicePayload.emulatorCommand(of: message, store: store) }
        let devices = devices
        try run(devices) {
            let run = devices.runOnEmulator(adb: adb, serial: target.serial, remoteCommand: command)
            reply.send(Self.answer(run))
        }
    }

    private func listSimulators(_ request: HTTPRequest, _ parameters: RouteParameters, _ reply: ReplyChannel) throws {
        try list("simulators", with: .xcrun, request, reply) { $0.bootedSimulators(xcrun: $1) }
    }

    private func listEmulators(_ request: HTTPRequest, _ parameters: RouteParameters, _ reply: ReplyChannel) throws {
        try list("emulators", with: .adb, request, reply) { $0.emulators(adb: $1) }
    }

    /// Answers `{key: [...]}` with what `list` finds through `tool` (its path given), off the event loops.
    private func list<Item: Encodable & Sendable>(
        _ key: String, with tool: DeviceTool, _ request: HTTPRequest, _ reply: ReplyChannel,
        _ list: @escaping @Sendable (DeviceRunner, String) -> Result<[Item], ToolFailure>
    ) throws {
        try Self.requireClientHeader(request)
        let path = try self.tool(tool)
        let devices = devices
        try run(devices) {
            switch list(devices, path) {
            case .success(let items): reply.send(AdminResponse.json(.ok, [key: items]))
            case .failure(let failure): reply.send(Self.answer(failure.run))
            }
        }
    }

    // MARK: - Helpers

    /// Runs `work` off the event loops, or answers `503` at once when the tools are busy.
    private func run(_ devices: DeviceRunner, _ work: @escaping @Sendable () -> Void) throws {
        guard devices.perform(work) else {
            throw AdminError(
                .serviceUnavailable,
                "\(devices.concurrentRuns) xcrun or adb runs are under way already (the most at once); send this "
                    + "again when one is answered")
        }
    }

    /// The tool's path, or `503` when it was not found at start (saying where it was looked for, and what to
    /// do instead).
    private func tool(_ tool: DeviceTool) throws -> String {
        guard let path = devices.tools.paths[tool] else {
            throw AdminError(
                .serviceUnavailable,
                "\(tool.rawValue) was \(devices.tools.lookup[tool] ?? "not found"); \(tool.withoutIt)")
        }
        return path
    }

    /// What the message becomes on the device, or `409` saying what it lacks.
    private func payload<T>(_ make: () throws -> T) throws -> T {
        do {
            return try make()
        } catch let error as DevicePayloadError {
            throw AdminError(.conflict, error.message)
        }
    }

    /// The body, or `empty` when there is none.
    private static func body<T: Codable>(_ empty: T, _ request: HTTPRequest) throws -> T {
        request.body.isEmpty ? empty : try AdminResponse.decode(T.self, from: request)
    }

    /// The push's message for `token`, or its only message of `platform`: `404` for no such push or token,
    /// `409` for a message of the other platform, `400` when the push has several and no token says which.
    private func message(of parameters: RouteParameters, token: String?, platform: Platform) throws
        -> ComposedMessage
    {
        let id = parameters["id"] ?? ""
        guard let number = Int64(id), let push = try store.read({ try $0.push(id: number) }) else {
            throw AdminError(.notFound, "no push with id '\(id)'")
        }
        let name = platform == .ios ? "iOS" : "Android"
        if let token {
            guard let message = push.messages.first(where: { $0.registrationToken == token }) else {
                throw AdminError(.notFound, "push \(id) has no message for registration token '\(token)'")
            }
            guard message.platform == platform else {
                throw AdminError(.conflict, "the message for '\(token)' is not \(platform.withArticle) message")
            }
            return message
        }
        let candidates = push.messages.filter { $0.platform == platform }
        guard let first = candidates.first else { throw AdminError(.conflict, "push \(id) has no \(name) message") }
        guard candidates.count == 1 else {
            throw AdminError(
                .badRequest, "push \(id) has \(candidates.count) \(name) messages: say which with registrationToken")
        }
        return first
    }

    /// `200` with the run when it succeeded; else `502` (the tool failed), `504` (stopped at the timeout)
    /// or `503` (it could not be started), the run with its `error`.
    private static func answer(_ run: ToolRun) -> HTTPResponse {
        let status: HTTPStatus =
            switch run.outcome {
            case .succeeded: .ok
            case .failed: .badGateway
            case .timedOut: HTTPStatus(code: 504)
            case .notStarted: .serviceUnavailable
            }
        return AdminResponse.json(status, run)
    }

    /// `6C2A9D1E-…`: 8-4-4-4-12 hex digits.
    private static func isUDID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }

    /// `emulator-5554`, `192.168.1.20:5555`, a USB serial: letters, digits, `.`, `:`, `_`, `-`, not
    /// starting with `-` (adb would read an option).
    private static func isSerial(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 128 && !text.hasPrefix("-")
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".:_-".contains($0)) }
    }
}
