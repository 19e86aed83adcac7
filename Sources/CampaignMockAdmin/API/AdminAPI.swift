package import CampaignMockChecks
package import CampaignMockHTTP
import CampaignMockJournal
package import CampaignMockModel
package import CampaignMockPush
package import CampaignMockRuntime
package import CampaignMockStorage
package import CampaignMockSupport
import CampaignMockSystem

/// The inspection and control API under `/_mock/`. JSON in and out; errors as `{ "error": "…" }`.
package struct AdminAPI: Sendable {
    let store: Store
    let log: AccessLog
    /// Monotonic start time, for uptime.
    let startedAt: UInt64
    let access: AdminAccess
    let faults: FaultRegistry
    let metrics: Metrics
    let waits: WaitRegistry
    let server: ServerReference
    let stream: EventHub
    /// The message id style of pushes that do not name one.
    let pushIDStyle: MessageIDStyle
    /// Sends composed pushes through APNs and FCM.
    let sender: PushSender
    /// Runs `xcrun simctl` and `adb` for the one-click pushes to a simulator or an emulator.
    let devices: DeviceRunner
    /// The integration checks' findings (`/_mock/checks`).
    let checks: IntegrationChecks
    /// The one state import that may run at a time.
    let importSlot = ImportSlot()
    /// The marks handed out (`POST /_mock/mark`).
    let marks = MarkRegistry()

    /// The admin group's middleware, outermost first: every answer is logged and counted, and access is
    /// checked before any route runs. (Errors are answered as JSON: ``AdminError/response(for:)``.)
    package var middleware: [any Middleware] {
        [AnswerLogging(endpoint: "admin", log: log, metrics: metrics), access]
    }

    /// Adds the admin routes to the `/_mock` group.
    package func register(on group: inout RouteGroup) {
        stream.showDevices(withTrust)
        group.add(.get, "/_mock/health", respond: health)
        group.add(.get, "/_mock/ready", respond: ready)
        group.add(.get, "/_mock/requests", respond: listRequests)
        group.add(.get, "/_mock/requests/{id}", respond: showRequest)
        group.add(.delete, "/_mock/requests", respond: clearRequests)
        registerInspection(on: &group)
        registerControl(on: &group)
        registerState(on: &group)
        registerPush(on: &group)
        registerDevices(on: &group)
        registerChecks(on: &group)
        registerMarks(on: &group)
        group.add(.get, "/_mock/stream", openStream)
        registerConsole(on: &group)
        group.add(
            .get, "/_mock/openapi.json",
            respond: { _ in .content(.ok, type: "application/json", OpenAPIDocument.bytes) })
    }

    /// The answer for an unknown `/_mock/` path.
    package static let notFound: Router.Body = { request, _, _ in
        throw AdminError(.notFound, "no admin endpoint at \(request.path)")
    }

    // MARK: - Endpoints

    /// `{"status":"ok","version":"…","uptimeSeconds":12.345}`, written directly: probes call it often, and
    /// Foundation's encoder was a quarter of the cost of answering it.
    private func health(_ request: HTTPRequest) throws -> HTTPResponse {
        // Written as bytes: load balancers and benchmarks call it more than anything else.
        let milliseconds = Int64((Clock.monotonicNanoseconds() - startedAt) / 1_000_000)
        let version = CampaignMockVersion.current
        // 31 bytes, 19 digits at most, 4 for the fraction, then 13 and 2 around the version.
        let body = ByteWriter.make(capacity: 69 + version.utf8.count) { body in
            body.append(#"{"status":"ok","uptimeSeconds":"#)
            body.append(decimal: Int(milliseconds / 1000))
            body.append(UInt8(ascii: "."))
            let fraction = milliseconds % 1000
            body.append(UInt8(ascii: "0") + UInt8(fraction / 100))
            body.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
            body.append(UInt8(ascii: "0") + UInt8(fraction % 10))
            body.append(#","version":""#)
            body.append(text: version)
            body.append(#""}"#)
        }
        return .content(.ok, type: "application/json", body)
    }

    private func ready(_ request: HTTPRequest) throws -> HTTPResponse {
        guard server.isAcceptingTraffic else {
            throw AdminError(.serviceUnavailable, "shutting down")
        }
        return AdminResponse.json(.ok, ["ready": true])
    }

    private func listRequests(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try AdminResponse.query(request)
        try AdminResponse.allowOnly(query, ["before", "after", "limit", "endpoint", "status", "app", "since"])
        let paging = try AdminResponse.paging(query)
        let limit = try AdminResponse.integer(query, "limit", in: 1...1000, default: 100)
        let mark = try mark(since: query["since"])
        var filter = try Self.journalFilter(mark == nil ? query : query.filter { $0.key != "since" })
        filter.afterID = mark?.request
        var page = try store.read { [filter] in try $0.journalPage(paging, limit: Int(limit), filter: filter) }
        page.warning = try filter.appKey.flatMap(unknownApplication)
        return AdminResponse.json(.ok, page)
    }

    private func showRequest(_ request: HTTPRequest, _ parameters: RouteParameters) throws -> HTTPResponse {
        guard let id = Int64(parameters["id"] ?? ""), id > 0 else {
            throw AdminError(.badRequest, "a request id is a positive number")
        }
        guard let entry = try store.read({ try $0.journalEntry(id: id) }) else {
            throw AdminError(.notFound, "the journal holds no request \(id) (it keeps the newest --journal-limit)")
        }
        return AdminResponse.json(.ok, entry)
    }

    private func clearRequests(_ request: HTTPRequest) throws -> HTTPResponse {
        let deleted = try store.writeAndWait { $0.clearJournal() }
        return AdminResponse.json(.ok, ["deleted": deleted])
    }

    package init(
        store: Store, log: AccessLog, startedAt: UInt64, access: AdminAccess, faults: FaultRegistry, metrics: Metrics,
        waits: WaitRegistry, server: ServerReference, stream: EventHub, pushIDStyle: MessageIDStyle,
        sender: PushSender, devices: DeviceRunner, checks: IntegrationChecks
    ) {
        self.store = store
        self.log = log
        self.startedAt = startedAt
        self.access = access
        self.faults = faults
        self.metrics = metrics
        self.waits = waits
        self.server = server
        self.stream = stream
        self.pushIDStyle = pushIDStyle
        self.sender = sender
        self.devices = devices
        self.checks = checks
    }
}
