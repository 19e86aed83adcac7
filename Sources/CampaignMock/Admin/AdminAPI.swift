import CampaignMockCore

/// The inspection and control API under `/_mock/`. JSON in and out; errors as `{ "error": "…" }`.
struct AdminAPI: Sendable {
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

    /// Adds the admin routes to `router`.
    func register(on router: inout Router) {
        router.add(.get, "/_mock/health", route(health))
        router.add(.get, "/_mock/ready", route(ready))
        router.add(.get, "/_mock/requests", route(listRequests))
        router.add(.delete, "/_mock/requests", route(clearRequests))
        registerInspection(on: &router)
        registerControl(on: &router)
        registerState(on: &router)
        registerPush(on: &router)
        router.add(.get, "/_mock/stream", asyncRoute(openStream))
        registerConsole(on: &router)
        router.add(
            .get, "/_mock/openapi.json", route { _ in .content(.ok, type: "application/json", OpenAPIDocument.bytes) })
    }

    /// Wraps an admin handler: access is checked, errors become JSON, every request is logged and counted.
    func route(_ body: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) -> Router.Body {
        routeWithParameters { request, _ in try body(request) }
    }

    /// Wraps an admin handler that reads path parameters.
    func routeWithParameters(_ body: @escaping @Sendable (HTTPRequest, RouteParameters) throws -> HTTPResponse)
        -> Router.Body
    {
        asyncRoute { request, parameters, reply in reply.send(try body(request, parameters)) }
    }

    /// Wraps an admin handler that answers later (the long poll); it gets the channel to answer on.
    func asyncRoute(_ body: @escaping @Sendable (HTTPRequest, RouteParameters, ReplyChannel) throws -> Void)
        -> Router.Body
    {
        { request, parameters, reply in
            let logged = ReplyChannel { answer in
                let status: Int
                switch answer {
                case .response(let response): status = response.status.code
                case .stream(let head, _): status = head.status.code
                case .drop, .reset: status = 0
                }
                if status != 0 {
                    log.record(request, status: status)
                    let seconds = Double(Clock.monotonicNanoseconds() &- request.receivedAt) / 1e9
                    metrics.recordRequest(endpoint: "admin", status: status, seconds: seconds)
                }
                reply.send(answer)
            }
            if let refusal = access.refusal(for: request) {
                logged.send(refusal.response)
                return
            }
            do {
                try body(request, parameters, logged)
            } catch let error as any HTTPResponseError {
                logged.send(error.response)
            } catch {
                logged.send(AdminError(.internalServerError, "\(error)").response)
            }
        }
    }

    /// The answer for an unknown `/_mock/` path.
    func notFound(_ request: HTTPRequest, _ reply: ReplyChannel) {
        route { _ in throw AdminError(.notFound, "no admin endpoint at \(request.path)") }(
            request, RouteParameters(), reply)
    }

    /// The answer for a known `/_mock/` path with the wrong method.
    func methodNotAllowed(_ request: HTTPRequest, _ allowed: [HTTPMethod], _ reply: ReplyChannel) {
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        route { _ in
            var response = AdminError(
                .methodNotAllowed, "\(request.method) is not allowed on \(request.path); use \(list)"
            ).response
            response.headers.set(.allow, list)
            return response
        }(request, RouteParameters(), reply)
    }

    // MARK: - Endpoints

    /// `{"status":"ok","version":"…","uptimeSeconds":12.345}`, written directly: probes call it often, and
    /// Foundation's encoder was a quarter of the cost of answering it.
    private func health(_ request: HTTPRequest) throws -> HTTPResponse {
        // Written as bytes: load balancers and benchmarks call it more than anything else.
        let milliseconds = Int64((Clock.monotonicNanoseconds() - startedAt) / 1_000_000)
        var body: [UInt8] = []
        body.reserveCapacity(80)
        body += #"{"status":"ok","uptimeSeconds":"#.utf8
        ASCII.appendDecimal(milliseconds / 1000, to: &body)
        body.append(UInt8(ascii: "."))
        let fraction = milliseconds % 1000
        body.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        body.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        body.append(UInt8(ascii: "0") + UInt8(fraction % 10))
        body += #","version":""#.utf8
        body += CampaignMockServer.version.utf8
        body += #""}"#.utf8
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
        let after = try AdminResponse.integer(query, "after", in: 0...Int64.max, default: 0)
        let limit = try AdminResponse.integer(query, "limit", in: 1...1000, default: 100)
        let filter = try Self.journalFilter(query)
        let page = try store.read { try $0.journalPage(after: after, limit: Int(limit), filter: filter) }
        return AdminResponse.json(.ok, page)
    }

    private func clearRequests(_ request: HTTPRequest) throws -> HTTPResponse {
        let deleted = try store.writeAndWait { try $0.clearJournal() }
        return AdminResponse.json(.ok, ["deleted": deleted])
    }
}
