@_exported public import CampaignMockModel
public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// A client of campaign-mock's admin API (`/_mock/…`) for UI and integration tests: reset the mock, wait
/// for what the app's SDK sent, read devices, events and the request journal, inject faults, compose
/// pushes, take snapshots and follow the event stream. Built on URLSession only, so an iOS app's
/// XCTest or XCUITest target can add it with SwiftPM.
///
///     let mock = CampaignMockClient(url: URL(string: "http://127.0.0.1:8080")!)
///     let start = try await mock.mark()
///     // … the UI test taps "Allow notifications" …
///     let registration = try await mock.waitForRegistration(
///         app: "campaign-mock-demo-ios", since: start, timeout: 30)
public struct CampaignMockClient: Sendable {
    /// The server's base URL, `http://127.0.0.1:8080` (from the simulator) or `http://10.0.2.2:8080`
    /// (from the Android emulator).
    public let url: URL
    /// The `--admin-token` the server was started with, if any.
    public let adminToken: String?
    private let session: URLSession

    public init(url: URL, adminToken: String? = nil, session: URLSession = .shared) {
        self.url = url
        self.adminToken = adminToken
        self.session = session
    }

    /// The client for the server named by `CAMPAIGN_MOCK_SERVER` and `CAMPAIGN_MOCK_ADMIN_TOKEN` (how CI
    /// passes them to a test process), else `http://127.0.0.1:8080`.
    ///
    /// `xcodebuild test` hands the test runner only the job's variables prefixed `TEST_RUNNER_`, with the
    /// prefix taken off; a job therefore sets `TEST_RUNNER_CAMPAIGN_MOCK_SERVER`. Its other steps see that
    /// name as it is, so it is read too (and `TEST_RUNNER_CAMPAIGN_MOCK_ADMIN_TOKEN`); the plain name wins
    /// when both are set.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> CampaignMockClient
    {
        func value(_ name: String) -> String? { environment[name] ?? environment["TEST_RUNNER_" + name] }
        let text = value("CAMPAIGN_MOCK_SERVER") ?? "http://127.0.0.1:8080"
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
            throw CampaignMockError.badServerURL(text)
        }
        return CampaignMockClient(url: url, adminToken: value("CAMPAIGN_MOCK_ADMIN_TOKEN"))
    }

    // MARK: - Health and control

    /// Whether the server answers `GET /_mock/ready` with 200.
    public func isReady() async -> Bool {
        (try? await send("GET", "/_mock/ready", expecting: [200])) != nil
    }

    /// Waits until the server is ready (a CI job that just started it), asking every 100 ms.
    public func waitUntilReady(timeout: TimeInterval = 30) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if await isReady() { return }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        throw CampaignMockError.notReady(url: url, seconds: timeout)
    }

    /// Empties what the mock stored (`POST /_mock/reset`): everything, or the parts in `only`, of every
    /// application or of `app`. Applications stay. A clean slate, not a step between tests: an installed
    /// app with the AEP extension does not register again afterwards; take a ``mark()`` between tests.
    /// `only: [.findings]` clears only the integration checks' findings.
    @discardableResult
    public func reset(only: Set<ResetPart> = [], app: String? = nil) async throws -> [String: Int] {
        var query: [URLQueryItem] = []
        if !only.isEmpty {
            query.append(URLQueryItem(name: "only", value: only.map(\.rawValue).sorted().joined(separator: ",")))
        }
        if let app { query.append(URLQueryItem(name: "app", value: app)) }
        let answer: ResetAnswer = try await decode(send("POST", "/_mock/reset", query: query, expecting: [200]))
        return answer.deleted
    }

    /// A mark (`POST /_mock/mark`): where a test starts. Pass it as `since` to the waits, the listings and
    /// the checks: they count exactly what came after it, and nothing is deleted, so a device registered
    /// in an earlier test (which the SDK does not register again) stays.
    public func mark() async throws -> Since {
        let answer: MarkAnswer = try await decode(send("POST", "/_mock/mark", expecting: [200]))
        return .mark(answer.mark)
    }

    private struct MarkAnswer: Decodable {
        let mark: String
    }

    // MARK: - Waiting

    /// Waits for `count` registrations matching the filters, counted from `since` (by default: every
    /// registration since the last reset, so one that arrived before the call is not missed).
    public func waitForRegistration(
        app: String? = nil, platform: Platform? = nil, userKey: String? = nil, token: String? = nil,
        params: [String: String] = [:], count: Int = 1, since: Since = .everything, timeout: TimeInterval = 10
    ) async throws -> [Registration] {
        var filters = ["app": app, "platform": platform?.rawValue, "userKey": userKey, "token": token].compactMapValues
        { $0 }
        for (name, value) in params { filters["param." + name] = value }
        return try await wait(for: .registration, filters: filters, count: count, since: since, timeout: timeout)
    }

    /// Waits for tracking hits of `kind` (receive or open) matching the filters.
    public func waitForEvent(
        _ kind: EventKind, messageId: String? = nil, deliveryId: String? = nil, token: String? = nil, count: Int = 1,
        since: Since = .everything, timeout: TimeInterval = 10
    ) async throws -> [TrackingEvent] {
        let filters = ["messageId": messageId, "deliveryId": deliveryId, "token": token].compactMapValues { $0 }
        return try await wait(
            for: StreamEventType(kind), filters: filters, count: count, since: since, timeout: timeout)
    }

    /// Waits for journaled requests (any outcome) of `endpoint`, with `status`, naming `app`.
    public func waitForRequest(
        endpoint: String? = nil, status: Int? = nil, app: String? = nil, count: Int = 1, since: Since = .everything,
        timeout: TimeInterval = 10
    ) async throws -> [JournaledRequest] {
        let filters = ["endpoint": endpoint, "status": status.map(String.init), "app": app].compactMapValues { $0 }
        return try await wait(for: .request, filters: filters, count: count, since: since, timeout: timeout)
    }

    private func wait<Item: Codable & Sendable>(
        for kind: StreamEventType, filters: [String: String], count: Int, since: Since, timeout: TimeInterval
    ) async throws -> [Item] {
        guard (1...1000).contains(count) else { throw CampaignMockError.badArgument("count must be 1 to 1000") }
        guard timeout > 0, timeout <= 300 else {
            throw CampaignMockError.badArgument("timeout must be above 0 and at most 300 s")
        }
        var query = [
            URLQueryItem(name: "for", value: kind.rawValue), URLQueryItem(name: "count", value: String(count)),
            URLQueryItem(name: "timeout", value: "\(Int((timeout * 1000).rounded()))ms"),
        ]
        if let value = since.queryValue { query.append(URLQueryItem(name: "since", value: value)) }
        query += filters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let (status, body) = try await send(
            "GET", "/_mock/wait", query: query, expecting: [200, 408], timeout: timeout + 10)
        let answer: WaitAnswer<Item> = try decode((status, body))
        guard status == 200 else {
            throw CampaignMockError.timedOut(
                what: kind.rawValue, wanted: count, seen: answer.count, serverSays: answer.error ?? "", filters: filters
            )
        }
        return answer.items
    }

    // MARK: - Reading

    /// Devices matching the filters, newest first (`limit` at most 1000).
    public func devices(
        app: String? = nil, platform: Platform? = nil, userKey: String? = nil, token: String? = nil,
        params: [String: String] = [:], search: String? = nil, limit: Int = 100, before: Int64? = nil
    ) async throws -> Page<Device> {
        var filters = ["app": app, "platform": platform?.rawValue, "userKey": userKey, "token": token, "q": search]
            .compactMapValues { $0 }
        for (name, value) in params { filters["param." + name] = value }
        let page: DevicePage = try await list("/_mock/devices", filters, limit: limit, before: before)
        return Page(items: page.devices, total: page.total, nextCursor: page.nextCursor)
    }

    /// One device with its registration history and the pushes composed for it; nil when none.
    public func device(token: String, app: String? = nil) async throws -> Device? {
        let (status, body) = try await send(
            "GET", Self.devicePath(token), query: app.map { [URLQueryItem(name: "app", value: $0)] } ?? [],
            expecting: [200, 404])
        return status == 404 ? nil : try decode((status, body))
    }

    /// Removes one device (of `app`, when its token is in several applications) with its registration
    /// history, its trust and the findings about it; its tracking events and composed pushes stay, linked to
    /// no device. The answer counts each.
    public func deleteDevice(token: String, app: String? = nil) async throws -> DeviceDeletion {
        try await decode(
            send(
                "DELETE", Self.devicePath(token), query: app.map { [URLQueryItem(name: "app", value: $0)] } ?? [],
                expecting: [200]))
    }

    /// Whether the token is trusted for real sends on the server's machine (explicit trust only:
    /// ``Device/sendAllowMatch`` says which `--send-allow` pattern matches it).
    public func isTrusted(token: String) async throws -> Bool {
        let trust: DeviceTrust = try await decode(send("GET", Self.devicePath(token) + "/trust", expecting: [200]))
        return trust.trusted
    }

    /// Trusts the token for real sends (`trusted: true`), or takes that back, until the server stops.
    @discardableResult
    public func setTrusted(_ trusted: Bool, token: String) async throws -> DeviceTrust {
        try await decode(send(trusted ? "POST" : "DELETE", Self.devicePath(token) + "/trust", expecting: [200]))
    }

    /// `/_mock/devices/<token>`, the token escaped for a path.
    static func devicePath(_ token: String) -> String {
        "/_mock/devices/"
            + (token.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? token)
    }

    /// Tracking hits, newest first.
    public func events(
        _ kind: EventKind? = nil, messageId: String? = nil, deliveryId: String? = nil, token: String? = nil,
        limit: Int = 100, before: Int64? = nil
    ) async throws -> Page<TrackingEvent> {
        let filters = ["type": kind?.rawValue, "messageId": messageId, "deliveryId": deliveryId, "token": token]
            .compactMapValues { $0 }
        let page: EventPage = try await list("/_mock/events", filters, limit: limit, before: before)
        return Page(items: page.events, total: page.total ?? page.events.count, nextCursor: page.nextCursor)
    }

    /// The request journal, newest first: what the SDKs sent and what they were answered.
    public func requests(
        endpoint: String? = nil, status: Int? = nil, app: String? = nil, limit: Int = 100, before: Int64? = nil
    ) async throws -> Page<JournaledRequest> {
        let filters = ["endpoint": endpoint, "status": status.map(String.init), "app": app].compactMapValues { $0 }
        let page: JournalPage = try await list("/_mock/requests", filters, limit: limit, before: before)
        return Page(items: page.requests, total: page.total ?? page.requests.count, nextCursor: page.nextCursor)
    }

    private func list<T: Decodable>(_ path: String, _ filters: [String: String], limit: Int, before: Int64?)
        async throws -> T
    {
        guard (1...1000).contains(limit) else { throw CampaignMockError.badArgument("limit must be 1 to 1000") }
        var query = filters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        query.append(URLQueryItem(name: "limit", value: String(limit)))
        if let before { query.append(URLQueryItem(name: "before", value: String(before))) }
        return try await decode(send("GET", path, query: query, expecting: [200]))
    }

    // MARK: - Applications

    public func applications() async throws -> [Application] {
        let answer: ApplicationList = try await decode(send("GET", "/_mock/apps", expecting: [200]))
        return answer.apps
    }

    /// Adds an application; an integration key that exists already is ``CampaignMockError/refused``.
    @discardableResult
    public func addApplication(_ application: Application) async throws -> Application {
        try await decode(send("POST", "/_mock/apps", body: JSONEncoder().encode(application), expecting: [201]))
    }

    // MARK: - Faults

    /// Adds a fault rule; the server gives it an id when it has none.
    @discardableResult
    public func addFault(_ rule: FaultRule) async throws -> FaultRule {
        try await decode(send("POST", "/_mock/faults", body: JSONEncoder().encode(rule), expecting: [201]))
    }

    public func faults() async throws -> [FaultStatus] {
        let answer: FaultList = try await decode(send("GET", "/_mock/faults", expecting: [200]))
        return answer.faults
    }

    public func removeFault(id: String) async throws {
        _ = try await send("DELETE", "/_mock/faults/" + id, expecting: [200, 204])
    }

    public func clearFaults() async throws {
        _ = try await send("DELETE", "/_mock/faults", expecting: [200, 204])
    }

    // MARK: - Pushes

    /// Composes a push for registered devices: their APNs and FCM payloads, and the tracking paths the SDK
    /// will call on receive and open.
    public func push(_ request: PushRequest) async throws -> ComposedPush {
        try await decode(send("POST", "/_mock/push", body: JSONEncoder().encode(request), expecting: [201]))
    }

    public func push(id: Int64) async throws -> ComposedPush {
        try await decode(send("GET", "/_mock/push/\(id)", expecting: [200]))
    }

    /// The composed pushes, newest first, each with its sends and hits (`limit` at most 200).
    public func pushes(limit: Int = 50, before: Int64? = nil) async throws -> Page<ComposedPush> {
        let page: PushPage = try await list("/_mock/push", [:], limit: limit, before: before)
        return Page(items: page.pushes, total: page.total, nextCursor: page.nextCursor)
    }

    /// Sends a composed push to the real devices through APNs or FCM, as the server is configured
    /// (docs/push-on-device.md): one ``PushSend`` per message, `blocked` with the reason when the server
    /// did not send it. Waits for the providers' answers (up to two minutes).
    public func send(push id: Int64, only request: PushSendRequest = PushSendRequest()) async throws -> [PushSend] {
        let list: PushSendList = try await decode(
            send("POST", "/_mock/push/\(id)/send", body: JSONEncoder().encode(request), expecting: [200], timeout: 120))
        return list.sends
    }

    /// Checks a payload built elsewhere (an APNs payload or an FCM HTTP v1 request body) against the
    /// platform's rules and what the Campaign SDKs read; composed pushes carry theirs in `check`.
    public func checkPayload(_ request: PayloadCheck.Request) async throws -> PayloadCheck {
        try await decode(send("POST", "/_mock/push/check", body: JSONEncoder().encode(request), expecting: [200]))
    }

    /// Sends the tracking hit the SDK sends for `path` (a push's `tracking.receive` or `.open`), as the
    /// app would: for tests that check the back end's view of a push without a device.
    public func simulateTracking(_ path: String) async throws {
        _ = try await send("GET", path, expecting: [200], admin: false)
    }

    // MARK: - Integration checks

    /// What the integration checks found in the apps' traffic (`GET /_mock/checks`, docs/checks.md): the most
    /// severe first, then the newest. `severity` keeps those at or above it; `since` those last seen from then on.
    public func checks(
        app: String? = nil, token: String? = nil, severity: CheckSeverity? = nil, since: Date? = nil
    ) async throws -> CheckReport {
        let rfc3339 = ISO8601DateFormatter()
        rfc3339.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try await checks(app: app, token: token, severity: severity, since: since.map(rfc3339.string))
    }

    /// The findings since a mark (``mark()``: those with a request of their evidence after it, whenever
    /// they fired), or since a time.
    public func checks(
        app: String? = nil, token: String? = nil, severity: CheckSeverity? = nil, since: Since
    ) async throws -> CheckReport {
        try await checks(app: app, token: token, severity: severity, since: since.queryValue)
    }

    private func checks(app: String?, token: String?, severity: CheckSeverity?, since: String?) async throws
        -> CheckReport
    {
        let filters = ["app": app, "token": token, "severity": severity?.rawValue, "since": since]
            .compactMapValues { $0 }
        let query = filters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return try await decode(send("GET", "/_mock/checks", query: query, expecting: [200]))
    }

    /// Throws ``CampaignMockError/findings(atOrAbove:_:)`` when the integration checks found anything at or
    /// above `severity` (of `app`, or about the device `token`, since `since`): its description gives each
    /// finding's title, what it means and what to change, so a UI test fails with what the app gets wrong.
    /// `wait` first waits out an open's window for its receive (10 s; the 2-minute window of a send is not
    /// waited for), so an open whose receive never comes is counted.
    ///
    ///     try await mock.requireNoFindings(atOrAbove: .warning, since: start, wait: true)
    public func requireNoFindings(
        atOrAbove severity: CheckSeverity, app: String? = nil, token: String? = nil, since: Since = .everything,
        wait: Bool = false
    ) async throws {
        var report = try await checks(app: app, token: token, severity: severity, since: since)
        if wait, let window = report.windows?.openReceive, window.closesInMilliseconds > 0 {
            // The window's own length bounds the wait, whatever a server answers.
            let milliseconds = max(0, min(window.closesInMilliseconds, window.lengthMilliseconds, 600_000)) + 100
            try await Task.sleep(nanoseconds: UInt64(milliseconds) * 1_000_000)
            report = try await checks(app: app, token: token, severity: severity, since: since)
        }
        guard report.findings.isEmpty else { throw CampaignMockError.findings(atOrAbove: severity, report.findings) }
    }

    // MARK: - Snapshots

    /// Everything stored (applications, devices with history, messages, events, fault rules) as the
    /// JSON document `PUT /_mock/state` takes back.
    public func snapshot() async throws -> Data {
        Data(try await send("GET", "/_mock/state", expecting: [200]).body)
    }

    /// Replaces everything stored with `snapshot`, atomically.
    public func restore(_ snapshot: Data) async throws {
        _ = try await send("PUT", "/_mock/state", body: snapshot, expecting: [200])
    }

    // MARK: - HTTP

    func send(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, expecting: Set<Int>,
        timeout: TimeInterval = 30, admin: Bool = true
    ) async throws -> (status: Int, body: Data) {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        let pathAndQuery = path.split(separator: "?", maxSplits: 1)
        components.percentEncodedPath = String(pathAndQuery[0])
        if pathAndQuery.count > 1 {
            components.percentEncodedQuery = String(pathAndQuery[1])
        } else if !query.isEmpty {
            components.queryItems = query
            // `+` is a space in a form-encoded query; URLComponents leaves it as it is.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        }
        guard let target = components.url else { throw CampaignMockError.badArgument("cannot make a URL of \(path)") }
        var request = URLRequest(url: target, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        // What the routes that run a tool on the server's machine want (a web page cannot send it).
        request.setValue("swift", forHTTPHeaderField: "Campaign-Mock-Client")
        if admin, let adminToken { request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch let error where Self.isCertificateFailure(error) {
            throw CampaignMockError.untrustedCertificate(url: url, reason: error.localizedDescription)
        } catch {
            throw CampaignMockError.unreachable(url: url, reason: error.localizedDescription)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard expecting.contains(status) else {
            let message =
                (try? JSONDecoder().decode(ErrorAnswer.self, from: data))?.error
                ?? String(decoding: data.prefix(300), as: UTF8.self)
            throw CampaignMockError.refused(method: method, path: path, status: status, message: message)
        }
        return (status, data)
    }

    /// The errors of a TLS handshake that reached the server but did not trust its certificate.
    /// Whether URLSession failed on the server's certificate. Compared as the error's domain and code:
    /// Foundation on Linux reports these as an `NSError` that a `URLError` pattern does not always match.
    /// Foundation on Linux (libcurl) gives no code for it (`NSURLErrorUnknown`), only curl's own words, which
    /// begin "SSL certificate problem" for a peer it could not verify.
    static func isCertificateFailure(_ error: any Error) -> Bool {
        let error = error as NSError
        guard error.domain == NSURLErrorDomain else { return false }
        return certificateFailures.contains { $0.rawValue == error.code }
            || (error.code == NSURLErrorUnknown && error.localizedDescription.hasPrefix("SSL certificate problem"))
    }

    static let certificateFailures: Set<URLError.Code> = [
        .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate,
        .serverCertificateNotYetValid, .secureConnectionFailed,
    ]

    func decode<T: Decodable>(_ answer: (status: Int, body: Data)) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: answer.body)
        } catch {
            throw CampaignMockError.unexpectedAnswer(String(describing: T.self), reason: "\(error)")
        }
    }
}

/// From when a wait counts.
public enum Since: Sendable, Equatable {
    /// Everything since the last reset (`since=0`): a request that arrived before the wait is counted.
    case everything
    /// Only what arrives from the moment of the call.
    case now
    case date(Date)
    /// What came after a mark the server handed out (``CampaignMockClient/mark()``): exact to the request.
    case mark(String)

    var queryValue: String? {
        switch self {
        case .everything: "0"
        case .now: nil
        case .date(let date): String(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        case .mark(let name): name
        }
    }
}

/// A failure, saying what to do about it.
public enum CampaignMockError: Error, Equatable, CustomStringConvertible, LocalizedError {
    case badServerURL(String)
    case badArgument(String)
    case unreachable(url: URL, reason: String)
    /// The server answered over HTTPS with a certificate this device or simulator does not trust.
    case untrustedCertificate(url: URL, reason: String)
    case notReady(url: URL, seconds: TimeInterval)
    case refused(method: String, path: String, status: Int, message: String)
    case timedOut(what: String, wanted: Int, seen: Int, serverSays: String, filters: [String: String])
    case unexpectedAnswer(String, reason: String)
    /// The integration checks found these, at or above the severity asked (``CampaignMockClient/requireNoFindings(atOrAbove:app:token:)``).
    case findings(atOrAbove: CheckSeverity, [CheckFinding])

    public var description: String {
        switch self {
        case .badServerURL(let text):
            "'\(text)' is not an http:// or https:// URL; set CAMPAIGN_MOCK_SERVER to the server's address"
        case .badArgument(let reason): reason
        case .unreachable(let url, let reason):
            "campaign-mock at \(url) cannot be reached (\(reason)); is it running (campaign-mock serve), and is this "
                + "the address the test's device uses (10.0.2.2 from the Android emulator)?"
        case .untrustedCertificate(let url, let reason):
            "campaign-mock at \(url) answered, but its certificate is not trusted here (\(reason)): this device does "
                + "not trust the CA that signs it. Install that CA (campaign-mock ca export; on a simulator "
                + "xcrun simctl keychain booted add-root-cert) or, on Android, the debug build's network security "
                + "config (campaign-mock ca export --format android-nsc); a server started with another "
                + "CAMPAIGN_MOCK_CAROOT signs with another CA (docs/https.md)"
        case .notReady(let url, let seconds):
            "campaign-mock at \(url) was not ready within \(Int(seconds)) s; check its output, or start it with "
                + "campaign-mock serve --port 8080"
        case .refused(let method, let path, let status, let message):
            status == 401 || status == 403
                ? "\(method) \(path): \(status) \(message) (pass the server's --admin-token to the client)"
                : "\(method) \(path): \(status) \(message)"
        case .timedOut(let what, let wanted, let seen, let serverSays, let filters):
            "waited for \(wanted) \(what)\(wanted == 1 ? "" : "s") matching \(filters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")), saw \(seen): \(serverSays)"
                + " (did the app reach the mock? its requests are in client.requests())"
        case .unexpectedAnswer(let type, let reason):
            "the server's answer is not a \(type) (\(reason)); is the client older or newer than the server?"
        case .findings(let severity, let findings):
            "campaign-mock's integration checks found \(findings.count) finding\(findings.count == 1 ? "" : "s") at or "
                + "above \(severity.rawValue) (GET /_mock/checks, docs/checks.md):\n"
                + findings.map(Self.describe).joined(separator: "\n")
        }
    }

    public var errorDescription: String? { description }

    /// A finding as a failed test shows it: severity, rule and title; what happened; what to change; where.
    /// What a device chose (a token, a user key in the message) goes into CI logs: escaped (``printable(_:)``).
    private static func describe(_ finding: CheckFinding) -> String {
        let token = finding.registrationToken.map { "token \(printable($0))" }
        let message = finding.messageId.map { "_mId \(printable($0))" }
        let times = finding.count > 1 ? "\(finding.count) times" : nil
        let subject = [finding.app.map { "app \(printable($0))" }, token, message, times, finding.doc].compactMap { $0 }
        return "- \(finding.severity.rawValue) \(printable(finding.rule)): \(printable(finding.title))\n  "
            + "\(printable(finding.message))\n  Fix: \(printable(finding.fix))\n  (\(subject.joined(separator: ", ")))"
    }

    /// `text` with every C0 and C1 control character and DEL as an escape (`\n`, `\u{1B}`): shown, not acted on.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar): result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
    }
}

extension CampaignMockClient {
    /// The admin API's operations (`METHOD /path` as in `/_mock/openapi.json`) this client calls, and those
    /// it leaves out on purpose with why; a test keeps the two together equal to the OpenAPI document, so
    /// that a new endpoint is not forgotten.
    public static let operations: (covered: Set<String>, leftOut: [String: String]) = (
        covered: [
            "get /_mock/ready", "post /_mock/reset", "get /_mock/wait", "get /_mock/devices",
            "get /_mock/devices/{token}", "get /_mock/events", "get /_mock/requests", "get /_mock/apps",
            "post /_mock/apps", "get /_mock/faults", "post /_mock/faults", "delete /_mock/faults",
            "delete /_mock/faults/{id}", "post /_mock/push", "post /_mock/push/check", "get /_mock/push/{id}",
            "post /_mock/push/{id}/send", "get /_mock/checks", "post /_mock/mark",
            "post /_mock/push/{id}/simulator", "post /_mock/push/{id}/emulator",
            "delete /_mock/devices/{token}", "get /_mock/push", "get /_mock/devices/{token}/trust",
            "post /_mock/devices/{token}/trust", "delete /_mock/devices/{token}/trust",
            "get /_mock/state",
            "put /_mock/state", "get /_mock/stream",
        ],
        leftOut: [
            "get /_mock/health": "isReady() is the probe tests need",
            "get /_mock/requests/{id}": "requests() already returns whole entries",
            "delete /_mock/requests": "reset(only: [.journal])",
            "put /_mock/apps/{key}": "configure applications with --app; tests rarely change them",
            "delete /_mock/apps/{key}": "configure applications with --app; tests rarely change them",
            "get /_mock/info": "for the console",
            "get /_mock/ca": "for devices: campaign-mock ca export",
            "get /_mock/metrics": "for Prometheus",
            "get /_mock/openapi.json": "the description itself",
            "get /_mock/ui": "the console",
            "get /_mock/ui/{file}": "the console",
            "get /_mock/simulators": "what the server's machine runs, for the console",
            "get /_mock/emulators": "what the server's machine runs, for the console",
        ]
    )
}
