import CampaignMockSystem

/// An incremental HTTP/1.1 request parser: a value over bytes, no socket (RFC 9112).
///
/// Feed bytes with ``append(_:)``, then call ``next()`` until it returns nil (more bytes needed).
/// Malformed input throws an ``HTTPError`` carrying the status to answer with; after that the
/// connection must be closed, since the framing can no longer be trusted.
///
/// Choices the RFC leaves open, made strict on purpose (a mock must not hide a client's bug):
/// bare LF or bare CR as a line ending is rejected (RFC 9112 §2.2 allows either choice);
/// obs-fold is rejected (§5.2); both `Content-Length` and `Transfer-Encoding` is rejected (§6.3).
package struct HTTPRequestParser {
    /// Size limits; each has its own status when exceeded.
    package struct Limits: Sendable, Equatable {
        /// Longest request line, CRLF excluded (414 URI Too Long).
        package var requestLineBytes: Int
        /// Total bytes of the header section after the request line (431).
        package var headerBytes: Int
        /// Most header fields (431).
        package var headerCount: Int
        /// Largest body, after de-chunking (413).
        package var bodyBytes: Int

        package init(
            requestLineBytes: Int = 8192, headerBytes: Int = 32768, headerCount: Int = 100,
            bodyBytes: Int = 1 << 20
        ) {
            self.requestLineBytes = requestLineBytes
            self.headerBytes = headerBytes
            self.headerCount = headerCount
            self.bodyBytes = bodyBytes
        }
    }

    /// What ``next()`` found.
    package enum Progress: Sendable {
        /// The head (no body yet) of a request whose body goes to a file (``BodySpooling``) or that asked
        /// for `100 Continue`: nothing more is read until ``admit(lease:)`` lets the body come (or the
        /// connection refuses the request and closes).
        case head(HTTPRequest)
        /// The head asked for `Expect: 100-continue` and no body byte has arrived yet: send `100 Continue`.
        case continueExpected
        /// A complete request.
        case request(HTTPRequest)
    }

    private struct Head {
        /// What the parser holds between requests.
        static var empty: Head { Head(method: .get, target: "", version: (1, 1)) }

        var method: HTTPMethod
        var target: String
        var version: (major: Int, minor: Int)
        var headers = HTTPHeaders()
        var headerBytes = 0
        var body: [UInt8] = []
        /// Where the body goes instead of `body` when the request may send a large one.
        var spooled: SpooledBody?
        /// What the head's admission gave the request (``HTTPRequest/lease``).
        var lease: (any Sendable & AnyObject)?

        var bodyCount: Int { spooled?.count ?? body.count }
    }

    /// How the body is delimited.
    private enum Framing {
        case length(Int)
        case chunked
    }

    /// Where the parser is in the request ``head`` holds.
    private enum State {
        case requestLine
        case headers
        /// The head was handed out (``Event/head(_:)``); waiting for ``admit(lease:)``.
        case admitting(Framing, spools: Bool, expectsContinue: Bool)
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(count: Int)
    }

    package let limits: Limits
    /// The requests whose bodies go to a temporary file, under their own limit.
    package let spooling: BodySpooling?
    private var buffer: [UInt8] = []
    private var start = 0
    private var state = State.requestLine
    /// The request being read. Kept apart from `state`, so that its header list and body grow in place: held
    /// in the state's cases, it was copied out and back for every line, and the list copied whole (shared
    /// with the state) for every header.
    private var head = Head.empty

    private static let chunkLineLimit = 4096

    package init(limits: Limits = Limits(), spooling: BodySpooling? = nil) {
        self.limits = limits
        self.spooling = spooling
    }

    /// Adds received bytes.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes.
    package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// How many received bytes are not parsed yet.
    package var unparsedByteCount: Int { buffer.count - start }

    /// Whether bytes of a request that is not complete yet are buffered.
    package var hasPartialRequest: Bool {
        if case .requestLine = state { return start < buffer.count }
        return true
    }

    /// Whether the parser is in the middle of a request's body.
    package var isReadingBody: Bool {
        switch state {
        case .requestLine, .headers: return false
        default: return true
        }
    }

    /// Parses as far as the buffered bytes allow.
    ///
    /// - Returns: the next event, or nil when more bytes are needed.
    /// - Throws: ``HTTPError`` with the status to answer (400, 413, 414, 417, 431, 501, 505).
    package mutating func next() throws(HTTPError) -> Progress? {
        while true {
            switch state {
            case .requestLine:
                guard let line = try readLine(limit: limits.requestLineBytes, tooLong: Self.uriTooLong) else {
                    return nil
                }
                // RFC 9112 §2.2: a server SHOULD ignore at least one empty line before the request-line.
                if line.isEmpty { continue }
                head = try Self.parseRequestLine(line)
                state = .headers

            case .headers:
                let remaining = limits.headerBytes - head.headerBytes
                guard let line = try readLine(limit: max(remaining, 0), tooLong: Self.headersTooLarge) else {
                    return nil
                }
                head.headerBytes += line.count + 2
                if head.headerBytes > limits.headerBytes { throw Self.headersTooLarge }
                if line.isEmpty {
                    if let event = try finishHead() { return event }
                    continue
                }
                if head.headers.fields.count >= limits.headerCount {
                    throw HTTPError(.requestHeaderFieldsTooLarge, "more than \(limits.headerCount) header fields")
                }
                let (name, value) = try Self.parseField(line)
                head.headers.append(name, value)

            case .admitting:
                return nil

            case .fixedBody(let remaining):
                let available = min(remaining, buffer.count - start)
                if available == 0 { return nil }
                try takeBody(available)
                if available == remaining { return complete() }
                state = .fixedBody(remaining: remaining - available)

            case .chunkSize:
                guard let line = try readLine(limit: Self.chunkLineLimit, tooLong: Self.chunkLineTooLong) else {
                    return nil
                }
                let size = try Self.parseChunkSize(line)
                if head.bodyCount + size > bodyLimit(head) { throw bodyTooLarge(head) }
                state = size == 0 ? .trailers(count: 0) : .chunkData(remaining: size)

            case .chunkData(let remaining):
                let available = min(remaining, buffer.count - start)
                if available == 0 { return nil }
                try takeBody(available)
                state = available == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - available)

            case .chunkDataEnd:
                // RFC 9112 §7.1: chunk-data is followed by exactly CRLF.
                if buffer.count - start < 2 { return nil }
                guard buffer[start] == 13 && buffer[start + 1] == 10 else {
                    throw HTTPError(.badRequest, "chunk data is not followed by CRLF")
                }
                start += 2
                state = .chunkSize

            case .trailers(let count):
                // RFC 9112 §7.1.2: trailer fields are parsed like header fields and, here, discarded.
                let remaining = limits.headerBytes - head.headerBytes
                guard let line = try readLine(limit: max(remaining, 0), tooLong: Self.headersTooLarge) else {
                    return nil
                }
                if line.isEmpty { return complete() }
                head.headerBytes += line.count + 2
                if count >= limits.headerCount {
                    throw HTTPError(.requestHeaderFieldsTooLarge, "more than \(limits.headerCount) trailer fields")
                }
                _ = try Self.parseField(line)
                state = .trailers(count: count + 1)
            }
        }
    }

    // MARK: - Head

    private mutating func finishHead() throws(HTTPError) -> Progress? {
        // The fields that decide the framing, gathered in one pass over the header list.
        var hosts = 0
        var expectation: String?
        var codings: [String] = []
        var lengths: [String] = []
        for (name, value) in head.headers {
            if name == .host {
                hosts += 1
            } else if name == .expect {
                if expectation == nil { expectation = value }
            } else if name == .transferEncoding {
                codings.append(value)
            } else if name == .contentLength {
                lengths.append(value)
            }
        }
        let isHTTP11 = head.version.minor >= 1
        // RFC 9112 §3.2: a server MUST respond 400 to an HTTP/1.1 request without exactly one Host.
        if isHTTP11 && hosts != 1 {
            throw HTTPError(.badRequest, hosts == 0 ? "missing Host header" : "more than one Host header")
        }
        if let expectation {
            // RFC 9110 §10.1.1: only 100-continue is defined; anything else is 417.
            guard expectation.trimmingASCIISpaces().lowercased() == "100-continue" else {
                throw HTTPError(.expectationFailed, "unsupported expectation '\(expectation)'")
            }
        }
        let expectsContinue = isHTTP11 && expectation != nil

        let framing: Framing
        if !codings.isEmpty {
            // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message means faulty framing.
            if !isHTTP11 { throw HTTPError(.badRequest, "Transfer-Encoding in an HTTP/1.0 request") }
            // RFC 9112 §6.3 (3): both headers may signal smuggling; this server rejects the message.
            if !lengths.isEmpty {
                throw HTTPError(.badRequest, "both Content-Length and Transfer-Encoding")
            }
            try Self.checkTransferCodings(codings)
            framing = .chunked
        } else {
            let length = try Self.contentLength(lengths)
            if length == 0 { return complete() }
            framing = .length(length)
        }
        // Asked only of requests with a body, and cheaply: every registration asks.
        let spools = spooling?.accepts(head.method, target: head.target) ?? false
        if case .length(let length) = framing, length > bodyLimit(spooled: spools) {
            throw bodyTooLarge(spooled: spools)
        }
        // Asked only of the requests that may send much, or wait to be told to: never a registration.
        guard spools || expectsContinue else {
            return try startBody(framing, spools: false, expectsContinue: false)
        }
        state = .admitting(framing, spools: spools, expectsContinue: expectsContinue)
        return .head(request(head))
    }

    /// Lets the body of the request handed out as ``Event/head(_:)`` come; the request it completes
    /// carries `lease`. Returns `.continueExpected` when the client waits for `100 Continue`.
    package mutating func admit(lease: (any Sendable & AnyObject)?) throws(HTTPError) -> Progress? {
        guard case .admitting(let framing, let spools, let expectsContinue) = state else { return nil }
        head.lease = lease
        return try startBody(framing, spools: spools, expectsContinue: expectsContinue)
    }

    private mutating func startBody(_ framing: Framing, spools: Bool, expectsContinue: Bool)
        throws(HTTPError) -> Progress?
    {
        if spools, let spooling {
            do {
                head.spooled = try SpooledBody(directory: spooling.directory)
            } catch {
                throw HTTPError(.insufficientStorage, "cannot keep the request body: \(error)")
            }
        }
        switch framing {
        case .chunked: state = .chunkSize
        case .length(let length): state = .fixedBody(remaining: length)
        }
        return continueEvent(expectsContinue)
    }

    private func continueEvent(_ expectsContinue: Bool) -> Progress? {
        // Nothing to send when the client did not ask or already started sending the body.
        expectsContinue && start == buffer.count ? .continueExpected : nil
    }

    private mutating func complete() -> Progress {
        state = .requestLine
        let request = request(head)
        head = .empty
        return .request(request)
    }

    private func request(_ head: Head) -> HTTPRequest {
        // The connection sets when it was received (a clock read here would be thrown away).
        var request = HTTPRequest(
            method: head.method, target: head.target, version: head.version,
            headers: head.headers, body: head.body, receivedAt: 0)
        request.spooledBody = head.spooled
        if let lease = head.lease { request.lease = lease }
        return request
    }

    /// Moves `count` buffered bytes to the body.
    private mutating func takeBody(_ count: Int) throws(HTTPError) {
        if let spooled = head.spooled {
            let written = buffer.withUnsafeBytes { bytes in
                Result { () throws(SystemCallError) in
                    try spooled.append(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)]))
                }
            }
            if case .failure(let error) = written {
                throw HTTPError(.insufficientStorage, "cannot keep the request body: \(error)")
            }
        } else {
            head.body.append(contentsOf: buffer[start..<(start + count)])
        }
        start += count
    }

    private func bodyLimit(_ head: Head) -> Int { bodyLimit(spooled: head.spooled != nil) }

    private func bodyLimit(spooled: Bool) -> Int {
        if spooled, let spooling { return spooling.limit }
        return limits.bodyBytes
    }

    private func bodyTooLarge(_ head: Head) -> HTTPError { bodyTooLarge(spooled: head.spooled != nil) }

    private func bodyTooLarge(spooled: Bool) -> HTTPError {
        HTTPError(.contentTooLarge, "request body is larger than \(bodyLimit(spooled: spooled)) bytes")
    }

    private static let uriTooLong = HTTPError(.uriTooLong, "request line is too long")
    private static let headersTooLarge = HTTPError(.requestHeaderFieldsTooLarge, "header section is too large")
    private static let chunkLineTooLong = HTTPError(.badRequest, "chunk-size line is too long")

    // MARK: - Lines

    /// Takes one CRLF-terminated line (without the CRLF), or nil if none is complete yet.
    private mutating func readLine(limit: Int, tooLong: @autoclosure () -> HTTPError) throws(HTTPError)
        -> ArraySlice<UInt8>?
    {
        let end = buffer.count
        // One pass finds the LF and counts the CRs before it (a second pass for a bare CR showed).
        let (found, carriageReturns): (Int?, Int) = buffer.withUnsafeBufferPointer { bytes in
            var index = start
            var carriageReturns = 0
            while index < end {
                let byte = bytes[index]
                if byte == 10 { return (index, carriageReturns) }
                if byte == 13 { carriageReturns += 1 }
                index += 1
            }
            return (nil, carriageReturns)
        }
        guard let newline = found else {
            if end - start > limit { throw tooLong() }
            return nil
        }
        // RFC 9112 §2.2: this server does not accept a bare LF as a line terminator.
        guard newline > start && buffer[newline - 1] == 13 else {
            throw HTTPError(.badRequest, "line ends with a bare LF; CRLF is required")
        }
        let line = buffer[start..<(newline - 1)]
        if line.count > limit { throw tooLong() }
        start = newline + 1
        // RFC 9112 §2.2: a bare CR inside a line is invalid (the one counted last ends the line).
        if carriageReturns > 1 { throw HTTPError(.badRequest, "bare CR in a line") }
        return line
    }

    // MARK: - Grammar

    /// RFC 9112 §3: request-line = method SP request-target SP HTTP-version.
    private static func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPError) -> Head {
        // Three parts separated by single spaces, found by index (split built an array per request).
        guard let firstSpace = line.firstIndex(of: 32),
            let secondSpace = line[(firstSpace + 1)...].firstIndex(of: 32),
            !line[(secondSpace + 1)...].contains(32)
        else {
            throw HTTPError(.badRequest, "malformed request line (expected 'METHOD target HTTP/1.1')")
        }
        let methodBytes = line[..<firstSpace]
        let targetBytes = line[(firstSpace + 1)..<secondSpace]
        let versionBytes = line[(secondSpace + 1)...]
        guard !methodBytes.isEmpty, !targetBytes.isEmpty, !versionBytes.isEmpty else {
            throw HTTPError(.badRequest, "malformed request line (expected 'METHOD target HTTP/1.1')")
        }
        guard methodBytes.allSatisfy(isTokenCharacter) else {
            throw HTTPError(.badRequest, "invalid method token")
        }
        let method = HTTPMethod(rawValue: String(decoding: methodBytes, as: UTF8.self))
        // RFC 9112 §3.2: request-target is visible ASCII.
        guard targetBytes.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            throw HTTPError(.badRequest, "request-target contains a space, control or non-ASCII byte")
        }
        // RFC 9112 §3.2: no form of request-target has a fragment; a client strips it before sending.
        if targetBytes.contains(UInt8(ascii: "#")) {
            throw HTTPError(.badRequest, "request-target contains a fragment ('#'); a client must not send one")
        }
        let target = try normalizedTarget(String(decoding: targetBytes, as: UTF8.self), method: method)
        let version = try parseVersion(versionBytes)
        return Head(method: method, target: target, version: version)
    }

    /// RFC 9112 §3.2: origin-form, absolute-form (reduced to its path), asterisk-form for OPTIONS.
    private static func normalizedTarget(_ target: String, method: HTTPMethod) throws(HTTPError) -> String {
        if target.utf8.first == UInt8(ascii: "/") { return target }
        if target == "*" && method == .options { return target }
        for scheme in ["http://", "https://"] where target.lowercased().hasPrefix(scheme) {
            let rest = target.dropFirst(scheme.count)
            guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
            let tail = String(rest[slash...])
            return tail.hasPrefix("?") ? "/" + tail : tail
        }
        throw HTTPError(.badRequest, "unsupported request-target form '\(target.prefix(64))'")
    }

    /// RFC 9112 §2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT.
    private static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPError) -> (major: Int, minor: Int) {
        let start = bytes.startIndex
        guard bytes.count == 8, bytes[start] == 72, bytes[start + 1] == 84, bytes[start + 2] == 84,
            bytes[start + 3] == 80, bytes[start + 4] == 47, isDigit(bytes[start + 5]), bytes[start + 6] == 46,
            isDigit(bytes[start + 7])
        else {
            throw HTTPError(.badRequest, "malformed HTTP version")
        }
        let major = Int(bytes[start + 5] - 48)
        let minor = Int(bytes[start + 7] - 48)
        guard major == 1 else {
            throw HTTPError(.httpVersionNotSupported, "HTTP/\(major).\(minor) is not supported; use HTTP/1.1")
        }
        // RFC 9110 §2.5: a higher minor version is answered as the highest this server speaks.
        return (1, min(minor, 1))
    }

    /// RFC 9112 §5: field-line = field-name ":" OWS field-value OWS.
    private static func parseField(_ line: ArraySlice<UInt8>) throws(HTTPError) -> (HTTPHeaderName, String) {
        // RFC 9112 §5.2: obs-fold (a line starting with SP or HTAB) is rejected.
        if let first = line.first, first == 32 || first == 9 {
            throw HTTPError(.badRequest, "obsolete line folding in header section")
        }
        guard let colon = line.firstIndex(of: 58) else {
            throw HTTPError(.badRequest, "header line without ':'")
        }
        let name = line[line.startIndex..<colon]
        // RFC 9112 §5.1: no whitespace between field name and colon.
        guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else {
            throw HTTPError(.badRequest, "invalid header field name")
        }
        let value = line[(colon + 1)...]
        // RFC 9110 §5.5: field values are VCHAR, SP, HTAB and obs-text; no NUL or other controls.
        guard value.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
            throw HTTPError(
                .badRequest, "control character in value of header '\(String(decoding: name, as: UTF8.self))'")
        }
        // OWS trimmed on the bytes, before the value becomes a String.
        var first = value.startIndex
        var end = value.endIndex
        while first < end, value[first] == 32 || value[first] == 9 { first += 1 }
        while end > first, value[end - 1] == 32 || value[end - 1] == 9 { end -= 1 }
        return (
            HTTPHeaderName(token: name),
            String(decoding: value[first..<end], as: UTF8.self)
        )
    }

    /// RFC 9112 §6.1 and §6.3 (4): chunked must be the final coding; others are not implemented here.
    private static func checkTransferCodings(_ values: [String]) throws(HTTPError) {
        let codings = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingASCIISpaces().lowercased() }
        guard let last = codings.last, codings.allSatisfy({ !$0.isEmpty }) else {
            throw HTTPError(.badRequest, "empty Transfer-Encoding")
        }
        guard last == "chunked" else {
            throw HTTPError(.badRequest, "Transfer-Encoding does not end with chunked")
        }
        if let other = codings.dropLast().first(where: { $0 != "chunked" }) {
            throw HTTPError(.notImplemented, "transfer coding '\(other)' is not implemented")
        }
        if codings.count > 1 { throw HTTPError(.badRequest, "chunked applied more than once") }
    }

    /// `value` as a length when it is only digits, at most 15 of them after leading zeros; else nil. The HTTP
    /// client reads an answer's length with it too: `Int(_:)` would take a sign.
    package static func plainLength(_ value: String) -> Int? {
        var length = 0
        var significant = 0
        for byte in value.utf8 {
            guard isDigit(byte) else { return nil }
            if significant > 0 || byte != UInt8(ascii: "0") { significant += 1 }
            guard significant <= 15 else { return nil }
            length = length * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value.utf8.isEmpty ? nil : length
    }

    /// RFC 9112 §6.3 (5): repeated identical lengths count as one; anything else is an error.
    private static func contentLength(_ values: [String]) throws(HTTPError) -> Int {
        // The usual case, one plain number, is read straight from its digits; anything else (a list,
        // spaces, a sign, too many digits) takes the checks below, which say what is wrong.
        if values.count == 1, let length = plainLength(values[0]) { return length }
        let items = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingASCIISpaces() }
        guard let first = items.first else { return 0 }
        for item in items {
            guard !item.isEmpty, item.utf8.allSatisfy(isDigit) else {
                throw HTTPError(.badRequest, "invalid Content-Length '\(item.prefix(32))'")
            }
            guard item == first else { throw HTTPError(.badRequest, "conflicting Content-Length values") }
        }
        let digits = first.drop { $0 == "0" }
        guard digits.count <= 15, let length = Int(digits.isEmpty ? "0" : digits) else {
            throw HTTPError(.contentTooLarge, "Content-Length \(first.prefix(32)) is too large")
        }
        return length
    }

    /// RFC 9112 §7.1: chunk-size [ chunk-ext ], chunk-size = 1*HEXDIG.
    private static func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPError) -> Int {
        let digits = line.prefix { ASCII.hexValue($0) != nil }
        let rest = line.dropFirst(digits.count)
        guard !digits.isEmpty else { throw HTTPError(.badRequest, "invalid chunk size") }
        // chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] ); extensions are ignored.
        let extensionStart = rest.drop { $0 == 32 || $0 == 9 }
        guard rest.isEmpty || extensionStart.first == 59 else {
            throw HTTPError(.badRequest, "invalid chunk size")
        }
        let significant = digits.drop { $0 == 48 }
        guard significant.count <= 15 else { throw HTTPError(.contentTooLarge, "chunk size is too large") }
        return significant.reduce(0) { $0 * 16 + Int(ASCII.hexValue($1) ?? 0) }
    }

    // MARK: - Characters

    /// RFC 9110 §5.6.2: tchar.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        // The punctuation spelled out case by case: searching a string of it walked its UTF-8 view, for
        // every `-` of every header name.
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"),
            UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"),
            UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

}
