package import CampaignMockHTTP

/// A small blocking HTTP/1.1 client for the command line (one request per connection), so the CLI
/// talks to a running server without URLSession and the networking half of Foundation.
package enum HTTPClient {
    package struct Response: Sendable {
        package var status: Int
        package var headers: HTTPHeaders
        package var body: [UInt8]

        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// `http://host:port/base` or `https://…` split.
    package struct Endpoint: Sendable, Equatable {
        package var host: String
        package var port: UInt16
        /// Path prefix the URL had (usually empty).
        package var basePath: String
        /// https.
        package var isSecure: Bool

        /// - Parameter allowHTTPS: whether `https://` URLs are taken.
        /// - Throws: ``HTTPClientError`` for a URL this client cannot use.
        package init(url: String, allowHTTPS: Bool = false) throws(HTTPClientError) {
            let rest: Substring
            if url.hasPrefix("http://") {
                rest = url.dropFirst("http://".count)
                isSecure = false
            } else if allowHTTPS && url.hasPrefix("https://") {
                rest = url.dropFirst("https://".count)
                isSecure = true
            } else {
                throw HTTPClientError(
                    allowHTTPS
                        ? "'\(url)' must be an http:// or https:// URL"
                        : "'\(url)' must be an http:// URL (the mock's plain HTTP port)")
            }
            let defaultPort: UInt16 = isSecure ? 443 : 80
            let authority = rest.prefix { $0 != "/" }
            basePath = String(rest.dropFirst(authority.count)).trimmingSlash()
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else {
                    throw HTTPClientError("bad IPv6 address in '\(url)'")
                }
                host = String(authority[...close])
                let after = authority[authority.index(after: close)...]
                port = after.hasPrefix(":") ? try Self.port(after.dropFirst(), url) : defaultPort
            } else if let colon = authority.lastIndex(of: ":") {
                host = String(authority[..<colon])
                port = try Self.port(authority[authority.index(after: colon)...], url)
            } else {
                host = String(authority)
                port = defaultPort
            }
            guard !host.isEmpty else { throw HTTPClientError("no host in '\(url)'") }
        }

        /// `host:port` as the Host header has it (the port left out when it is the scheme's default).
        package var authority: String {
            port == (isSecure ? 443 : 80) ? host : "\(host):\(port)"
        }

        private static func port(_ text: Substring, _ url: String) throws(HTTPClientError) -> UInt16 {
            guard let port = UInt16(text) else { throw HTTPClientError("bad port in '\(url)'") }
            return port
        }
    }

    /// How much of an answer is read, and for how long, before the exchange is given up: a broken server or
    /// proxy that sends headers or a body without end, or a byte at a time, cannot hold its caller.
    package struct Limits: Sendable, Equatable {
        /// The status line and headers, those of informational (1xx) answers before it included.
        package var headBytes: Int
        package var bodyBytes: Int
        /// The whole exchange, from the connection to the last byte; nil for the per-read timeout only.
        package var seconds: Int?

        package init(headBytes: Int, bodyBytes: Int, seconds: Int?) {
            self.headBytes = headBytes
            self.bodyBytes = bodyBytes
            self.seconds = seconds
        }

        /// The command line's: any size, as long as the server keeps sending.
        package static let none = Limits(headBytes: .max, bodyBytes: .max, seconds: nil)
    }

    /// Sends one request and reads the whole response: up to its `Content-Length`, else to the end of the
    /// connection, within `limits`.
    ///
    /// - Parameter tls: what an https endpoint is trusted by (default: the system's CAs).
    /// - Throws: ``HTTPClientError`` for connection failures, timeouts, TLS failures, malformed responses and
    ///   answers over the limits.
    package static func send(
        _ method: HTTPMethod, _ path: String, to endpoint: Endpoint, headers: HTTPHeaders = [:], body: [UInt8] = [],
        timeoutSeconds: Int = 30, tls: TLSClientContext? = nil, limits: Limits = .none
    ) throws(HTTPClientError) -> Response {
        let place = "\(endpoint.host):\(endpoint.port)"
        let deadline = limits.seconds.map { ContinuousClock.now + .seconds($0) }
        let socket: Socket
        do {
            socket = try Socket.connect(host: endpoint.host, port: endpoint.port, timeoutSeconds: timeoutSeconds)
        } catch {
            throw HTTPClientError("cannot connect to \(place): \(error)")
        }
        defer { socket.close() }
        var head = "\(method.rawValue) \(endpoint.basePath)\(path) HTTP/1.1\r\nHost: \(endpoint.authority)\r\n"
        for (name, value) in headers where name != .host && name != .contentLength && name != .connection {
            head += "\(name.rawValue): \(value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let request = Array(head.utf8) + body
        var received: [UInt8] = []
        var progress = ResponseProgress(limits: limits)
        var chunk = [UInt8](repeating: 0, count: 65536)
        /// Reads with `read` until the response is complete or the connection ends.
        func receive(_ read: (UnsafeMutableRawBufferPointer) throws -> Int) throws {
            while try !progress.isComplete(received) {
                if let deadline {
                    let left = ContinuousClock.now.duration(to: deadline)
                    guard left > .zero else {
                        throw HTTPClientError("no complete answer within \(limits.seconds ?? 0) s")
                    }
                    socket.setReceiveTimeout(seconds: min(timeoutSeconds, Int(left.components.seconds) + 1))
                }
                let count = try chunk.withUnsafeMutableBytes { try read($0) }
                guard count > 0 else { return }
                received += chunk[0..<count]
            }
        }
        if endpoint.isSecure {
            do {
                let context = try tls ?? TLSClientContext()
                let stream = try TLSClientStream(socket: socket, host: endpoint.host, context: context)
                defer { stream.close() }
                try stream.writeAll(request)
                try receive { buffer in try stream.read(into: buffer) }
            } catch let error as HTTPClientError {
                throw HTTPClientError("HTTPS with \(place): \(error)")
            } catch {
                throw HTTPClientError("HTTPS with \(place): \(error)")
            }
        } else {
            do {
                try socket.writeAll(request)
                try receive { buffer in try socket.readBlocking(into: buffer) }
            } catch {
                throw HTTPClientError("exchanging with \(place) failed: \(error)")
            }
        }
        return try HTTPResponseReader.read(received)
    }
}

/// Follows a response as its bytes arrive: says when it is complete (its `Content-Length` reached), so the
/// client need not wait for the end of the connection, and refuses a head or a body over the limits.
package struct ResponseProgress {
    let limits: HTTPClient.Limits
    /// Where the head being looked for starts (after the informational answers before it).
    private var headStart = 0
    /// How far the search for the end of that head has come.
    private var scanned = 0
    private var bodyStart: Int?
    private var contentLength: Int?

    package init(limits: HTTPClient.Limits) {
        self.limits = limits
    }

    package mutating func isComplete(_ received: [UInt8]) throws(HTTPClientError) -> Bool {
        while bodyStart == nil {
            guard let end = HTTPResponseReader.find([13, 10, 13, 10], in: received, from: max(headStart, scanned - 3))
            else {
                scanned = received.count
                if received.count > limits.headBytes { throw Self.overHead(limits) }
                return false
            }
            guard end + 4 <= limits.headBytes else { throw Self.overHead(limits) }
            let head = try HTTPResponseReader.head(received[headStart..<end])
            if head.isInformational {
                headStart = end + 4
                scanned = headStart
                continue
            }
            bodyStart = end + 4
            if !head.headers.hasToken("chunked", in: .transferEncoding) {
                contentLength = try HTTPResponseReader.contentLength(head.headers)
            }
        }
        if let contentLength, contentLength > limits.bodyBytes { throw Self.overBody(limits) }
        let body = received.count - (bodyStart ?? 0)
        guard body <= limits.bodyBytes else { throw Self.overBody(limits) }
        return contentLength.map { body >= $0 } ?? false
    }

    private static func overHead(_ limits: HTTPClient.Limits) -> HTTPClientError {
        HTTPClientError("the answer's status line and headers are over \(limits.headBytes) bytes")
    }

    private static func overBody(_ limits: HTTPClient.Limits) -> HTTPClientError {
        HTTPClientError("the answer's body is over \(limits.bodyBytes) bytes")
    }
}

/// Why a request could not be made.
package struct HTTPClientError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// Reads a whole HTTP/1.1 response (the connection was closed after it).
package enum HTTPResponseReader {
    package static func read(_ bytes: [UInt8]) throws(HTTPClientError) -> HTTPClient.Response {
        var start = 0
        while true {
            guard let end = find([13, 10, 13, 10], in: bytes, from: start) else {
                throw HTTPClientError("the server closed the connection before a complete response")
            }
            let head = try head(bytes[start..<end])
            // An informational answer (100 Continue, 103 Early Hints) comes before the one that counts.
            if head.isInformational {
                start = end + 4
                continue
            }
            var body = Array(bytes[(end + 4)...])
            if head.headers.hasToken("chunked", in: .transferEncoding) {
                body = try dechunk(body)
            } else if let length = try contentLength(head.headers) {
                guard body.count >= length else {
                    throw HTTPClientError("the body ended after \(body.count) of \(length) bytes")
                }
                body = Array(body.prefix(length))
            }
            return HTTPClient.Response(status: head.status, headers: head.headers, body: body)
        }
    }

    /// The `Content-Length`, nil without one. Only a plain run of digits is a length, as for the server's own
    /// requests: `-1` reached `prefix(_:)` and stopped the whole server.
    static func contentLength(_ headers: HTTPHeaders) throws(HTTPClientError) -> Int? {
        guard let value = headers[.contentLength] else { return nil }
        guard let length = HTTPRequestParser.plainLength(value) else {
            throw HTTPClientError("bad Content-Length '\(value.prefix(32))'")
        }
        return length
    }

    /// A status line and its headers.
    struct Head {
        var status: Int
        var headers: HTTPHeaders

        /// 100 Continue, 103 Early Hints…: an answer that comes before the one that counts (101 ends HTTP/1.1).
        var isInformational: Bool { (100..<200).contains(status) && status != 101 }
    }

    /// The status and headers of a head (without its blank line).
    static func head(_ bytes: ArraySlice<UInt8>) throws(HTTPClientError) -> Head {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let status = lines.first.map { $0.split(separator: " ") } ?? []
        guard status.count >= 2, status[0].hasPrefix("HTTP/1."), let code = Int(status[1]) else {
            throw HTTPClientError("not an HTTP response: '\(lines.first ?? "")'")
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw HTTPClientError("bad header line '\(line)'") }
            headers.append(
                HTTPHeaderName(rawValue: String(line[..<colon])),
                line[line.index(after: colon)...].trimmingASCIISpaces())
        }
        return Head(status: code, headers: headers)
    }

    private static func dechunk(_ bytes: [UInt8]) throws(HTTPClientError) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = find([13, 10], in: bytes, from: index) else {
                throw HTTPClientError("truncated chunk size")
            }
            let sizeText = (String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "")
                .trimmingASCIISpaces()
            // Hex digits only (`Int(_:radix:)` would take a sign), and no more than 15 of them: a size that
            // does not fit, or is negative, must not reach the range below.
            guard !sizeText.isEmpty, sizeText.count <= 15, sizeText.allSatisfy(\.isHexDigit),
                let size = Int(sizeText, radix: 16)
            else {
                throw HTTPClientError("bad chunk size '\(sizeText.prefix(32))'")
            }
            index = lineEnd + 2
            if size == 0 { return result }
            guard size <= bytes.count - index else { throw HTTPClientError("truncated chunk") }
            result += bytes[index..<(index + size)]
            index += size + 2
        }
    }

    static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        var index = start
        while index + pattern.count <= bytes.count {
            if bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingSlash() -> String {
        hasSuffix("/") ? String(dropLast()) : self
    }
}
