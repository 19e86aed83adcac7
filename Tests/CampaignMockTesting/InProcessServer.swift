package import CampaignMock
import CampaignMockHTTP
import CampaignMockNetwork
package import CampaignMockSystem
package import CampaignMockTestSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A CampaignMockApp that no socket reaches, for the endpoint and admin tests: nothing listens, nothing
/// connects.
///
/// Each request is written as the bytes URLSession sends on Linux (its Host, Accept, User-Agent,
/// Content-Length, and the form Content-Type it gives a body that has none), read by the listener's own
/// parser with the listener's limits and spooled bodies, and handed to the app, the handler the listener
/// would hand it to, from a loopback address. The answer is written by the listener's serializer (Date,
/// Server, Content-Length, chunked coding for a streamed download) and read back as URLSession gives it:
/// redirects followed, a dropped or reset connection thrown as the URLError URLSession throws. The app is
/// given its address, `127.0.0.1:` ``defaultPort`` unless told otherwise: answers name it, and the Host
/// header names it, as a client of a server there would.
///
/// What it cannot stand for stays on ``LiveServer``: the listener itself, TLS, hostile and slow clients,
/// load, event streams that never end (`/_mock/stream`), long polls raced against other requests, and
/// Host headers or bytes a client library would not send.
package final class InProcessServer: TestServer {
    package let app: CampaignMockApp
    package let directory: TemporaryDirectory?
    package let port: UInt16
    /// `http://127.0.0.1:8080`: the app's base URL, whose authority each request's Host header names.
    package let baseURL: String
    /// The listener's limits and spooled routes, which the parser applies as on a connection.
    private let listener: HTTPServerConfiguration
    /// The client's address: loopback (the admin API serves loopback clients only), one keep-alive
    /// connection's port.
    private let remoteAddress = SocketAddress(host: "127.0.0.1", port: 50_000, family: .ipv4)

    /// The port an in-process app is given when the test names none: the configuration's default.
    package static let defaultPort: UInt16 = Configuration().http.address.port

    /// How long a request waits for its answer: replies may come from another thread after a commit, a
    /// fault's delay or a long poll.
    package static let replyTimeoutSeconds = 30
    /// URLSession's `User-Agent` names the process the same way, then its own version.
    private static let userAgent = "\(ProcessInfo.processInfo.processName) (unknown version) in-process"

    package convenience init(
        inMemory: Bool = false, directory: TemporaryDirectory? = nil, logger: Logger = .silent,
        _ adjust: (inout Configuration) -> Void = { _ in }
    ) throws {
        try self.init(port: Self.defaultPort, inMemory: inMemory, directory: directory, logger: logger, adjust)
    }

    /// An app given `port` (and the configured HTTPS port, when HTTPS is on), which it names in its answers.
    package init(
        port: UInt16, inMemory: Bool = false, directory: TemporaryDirectory? = nil, logger: Logger = .silent,
        _ adjust: (inout Configuration) -> Void = { _ in }
    ) throws {
        let (configuration, directory) = Self.configuration(
            port: port, inMemory: inMemory, directory: directory, adjust)
        app = try CampaignMockApp(configuration: configuration, logger: logger)
        listener = app.listenerConfiguration
        self.directory = directory
        self.port = configuration.http.address.port
        let addresses = ListeningAddresses(configured: listener)
        baseURL = addresses.baseURL
        app.start(at: addresses)
    }

    deinit {
        app.shutdown()
    }

    /// Sends a request through the router and returns status, headers and body as ``LiveServer`` does.
    package func send(_ method: String, _ path: String, body: String?, headers: [String: String]) throws
        -> (status: Int, headers: [String: String], body: String)
    {
        var (method, path, body, headers) = (method, path, body, headers)
        // URLSession follows redirects on its own (curl's rules): 301 and 302 turn a POST into a GET, 303
        // turns anything into a GET; the body and its Content-Type go, the other headers stay.
        for _ in 0..<16 {
            let response = try exchange(method, path, body: body, headers: headers)
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["location"]
            else { return response }
            if response.status == 303 || ([301, 302].contains(response.status) && method == "POST") {
                if method != "HEAD" { method = "GET" }
                body = nil
                headers = headers.filter { $0.key.lowercased() != "content-type" }
            }
            path = try Self.target(of: location, from: path, baseURL: baseURL)
        }
        throw URLError(.httpTooManyRedirects)
    }

    /// One request and its answer, without redirects.
    private func exchange(_ method: String, _ path: String, body: String?, headers: [String: String]) throws
        -> (status: Int, headers: [String: String], body: String)
    {
        var parser = HTTPRequestParser(limits: listener.limits, spooling: listener.spooling)
        parser.append(try requestBytes(method, path, body: body, headers: headers))
        var request: HTTPRequest?
        var refusal: HTTPResponse?
        do throws(HTTPError) {
            while request == nil && refusal == nil, let event = try parser.next() {
                // `continueExpected` needs no answer here: the whole body is in the parser already.
                switch event {
                case .head(var head):
                    // Decided on the head as the listener decides it (Connection.nextRequest).
                    head.remoteAddress = remoteAddress
                    switch app.admitHead(head) {
                    case .proceed(let lease): _ = try parser.admit(lease: lease)
                    case .refuse(let response): refusal = response
                    }
                case .request(let parsed): request = parsed
                case .continueExpected: break
                }
            }
        } catch {
            // What the connection answers before it closes (Connection.fail).
            return try read(error.response, close: true, isHead: method == "HEAD")
        }
        if let refusal { return try read(refusal, close: true, isHead: method == "HEAD") }
        guard var request else { throw URLError(.badServerResponse) }
        request.remoteAddress = remoteAddress
        request.receivedAt = Clock.monotonicNanoseconds()
        request.isSecure = false

        let exchange = PendingReply()
        app.handle(request, reply: ReplyChannel { exchange.receive($0) })
        switch try exchange.wait(seconds: Self.replyTimeoutSeconds) {
        case .response(let response):
            return try read(
                response, close: response.headers.hasToken("close", in: .connection), isHead: method == "HEAD")
        case .stream(let head, let bytes):
            var wire = head.serialized(stamp: Self.stamp(listener), close: true, isHead: false, chunked: true)
            if !bytes.isEmpty { wire += Array(String(bytes.count, radix: 16).utf8) + [13, 10] + bytes + [13, 10] }
            wire += Array("0\r\n\r\n".utf8)
            return try Self.read(wire, isHead: method == "HEAD")
        case .dropped:
            throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "Empty reply from server"])
        case .reset:
            throw URLError(
                .networkConnectionLost, userInfo: [NSLocalizedDescriptionKey: "Recv failure: Connection reset by peer"])
        }
    }

    /// The bytes URLSession (libcurl) sends for this request on Linux, in its order.
    private func requestBytes(_ method: String, _ path: String, body: String?, headers: [String: String]) throws
        -> [UInt8]
    {
        let base = baseURL
        guard let url = URL(string: base + path), url.absoluteString.hasPrefix(base),
            !path.contains("#"), !path.split(separator: "/").contains(where: { $0 == "." || $0 == ".." })
        else {
            // curl would drop a fragment and resolve dot segments; no test needs that.
            throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "not a target for InProcessServer: \(path)"])
        }
        if (method == "GET" || method == "HEAD") && body != nil {
            throw URLError(.dataNotAllowed, userInfo: [NSLocalizedDescriptionKey: "GET method must not have a body"])
        }
        // curl's own lines, then the caller's, then those Foundation adds, each left out when the caller
        // gave it (the caller's Host takes the first line).
        let given = Set(headers.keys.map { $0.lowercased() })
        let host = headers.first { $0.key.lowercased() == "host" }
        var lines = ["\(method) \(url.absoluteString.dropFirst(base.count)) HTTP/1.1"]
        lines.append("Host: " + (host?.value ?? String(base.dropFirst("http://".count))))
        if !given.contains("accept") { lines.append("Accept: */*") }
        if !given.contains("accept-encoding") { lines.append("Accept-Encoding: deflate, gzip, br, zstd") }
        lines += headers.filter { $0.key.lowercased() != "host" }.sorted { $0.key < $1.key }.map {
            "\($0.key): \($0.value)"
        }
        if !given.contains("connection") { lines.append("Connection: keep-alive") }
        if !given.contains("user-agent") { lines.append("User-Agent: " + Self.userAgent) }
        if !given.contains("accept-language") { lines.append("Accept-Language: en") }
        let bytes = Array((body ?? "").utf8)
        // curl's default for a body (written without a space, as curl writes it).
        if !given.contains("content-type") && !bytes.isEmpty {
            lines.append("Content-Type:application/x-www-form-urlencoded")
        }
        if method != "GET" && method != "HEAD" && !given.contains("content-length") {
            lines.append("Content-Length: \(bytes.count)")
        }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + bytes
    }

    /// The path and query a redirect's `Location` leads to on this server.
    private static func target(of location: String, from path: String, baseURL: String) throws -> String {
        let current = URL(string: baseURL + path)
        guard let next = URL(string: location, relativeTo: current)?.absoluteURL,
            next.absoluteString == baseURL || next.absoluteString.hasPrefix(baseURL + "/")
        else {
            throw URLError(
                .unsupportedURL, userInfo: [NSLocalizedDescriptionKey: "redirect away from the server: \(location)"])
        }
        let target = String(next.absoluteString.dropFirst(baseURL.count))
        return target.isEmpty ? "/" : target
    }

    /// The `Date` and `Server` lines of the listener.
    private static func stamp(_ listener: HTTPServerConfiguration) -> HTTPResponse.Stamp {
        HTTPResponse.Stamp(
            date: HTTPDate.imfFixdate(secondsSince1970: Clock.wallClock().seconds), server: listener.serverName)
    }

    /// The response as the listener writes it, read back as URLSession reads it.
    private func read(_ response: HTTPResponse, close: Bool, isHead: Bool) throws
        -> (status: Int, headers: [String: String], body: String)
    {
        try Self.read(response.serialized(stamp: Self.stamp(listener), close: close, isHead: false), isHead: isHead)
    }

    /// Status, headers (lowercase names, repeated ones joined with ", ") and body of a response's bytes; no
    /// body for HEAD, whose answer announces the length of a body it does not send.
    private static func read(_ wire: [UInt8], isHead: Bool) throws
        -> (status: Int, headers: [String: String], body: String)
    {
        let response = try HTTPResponseReader.read(wire)
        var headers: [String: String] = [:]
        for (name, value) in response.headers {
            headers[name.canonical] = headers[name.canonical].map { $0 + ", " + value } ?? value
        }
        return (response.status, headers, isHead ? "" : response.text)
    }
}

/// The answer to one request, given by the handler on any thread, and a streamed body as it is written.
private final class PendingReply: @unchecked Sendable {
    enum Outcome {
        case response(HTTPResponse)
        /// A streamed answer that ended: its head and every byte written.
        case stream(HTTPResponse, [UInt8])
        case dropped
        case reset
    }

    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Outcome?
    private var stream: (head: HTTPResponse, body: ResponseStream, bytes: [UInt8])?

    func receive(_ reply: HTTPReply) {
        switch reply {
        case .response(let response): finish(.response(response))
        case .drop: finish(.dropped)
        case .reset: finish(.reset)
        case .stream(let head, let body):
            lock.withLock { stream = (head, body, []) }
            body.attach { [self] event in take(event, of: body) }
        }
    }

    /// A stream's event: every byte is taken at once, so a producer that waits for its reader never waits.
    private func take(_ event: ResponseStream.Part, of body: ResponseStream) {
        switch event {
        case .chunk(let bytes):
            lock.withLock { stream?.bytes += bytes }
            body.noteUnsent(0)
        case .finish(let bytes):
            let ended = lock.withLock { () -> Outcome? in
                guard let stream else { return nil }
                return .stream(stream.head, stream.bytes + bytes)
            }
            body.markClosed()
            if let ended { finish(ended) }
        case .abort:
            body.markClosed()
            finish(.reset)
        }
    }

    private func finish(_ outcome: Outcome) {
        lock.withLock { self.outcome = outcome }
        done.signal()
    }

    /// The outcome; throws URLSession's timeout when none came within `seconds` (a stream still open is
    /// closed, as the connection would be).
    func wait(seconds: Int) throws -> Outcome {
        guard done.wait(timeout: .now() + .seconds(seconds)) == .success, let outcome = lock.withLock({ outcome })
        else {
            lock.withLock { stream?.body }?.markClosed()
            throw URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: "no answer within \(seconds) s"])
        }
        return outcome
    }
}
