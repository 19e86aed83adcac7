import CNGHTTP2
package import CampaignMockSystem

/// A blocking HTTP/2 client connection over TLS (ALPN `h2`), for requests sent one after another, such
/// as APNs wants: one long-lived connection, a stream per request. The framing, header compression and
/// flow control are nghttp2's; this type moves its bytes through ``TLSClientStream``.
///
/// Not thread-safe: one caller at a time (the owner serialises its sends).
package final class HTTP2Connection {
    /// What one request got back.
    package struct Response: Sendable, Equatable {
        package var status: Int
        /// Lowercase names, in the order received (pseudo-headers excluded).
        package var headers: [HTTPHeaderField]
        package var body: [UInt8]

        /// The first value of `name` (lowercase).
        package func header(_ name: String) -> String? {
            headers.first { $0.name == name }?.value
        }
    }

    /// A header of a request or response.
    package struct HTTPHeaderField: Sendable, Equatable {
        package var name: String
        package var value: String

        package init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// How much of an answer is kept before the exchange is given up: a broken server or proxy that sends
    /// headers (or informational answers) or DATA without end cannot fill the memory.
    package struct Limits: Sendable, Equatable {
        /// Header fields of one answer, pseudo-headers and those of informational (1xx) blocks included.
        package var headerFields: Int
        /// Their names and values together.
        package var headerBytes: Int
        package var bodyBytes: Int

        package init(headerFields: Int = 100, headerBytes: Int = 16 << 10, bodyBytes: Int = 64 << 10) {
            self.headerFields = headerFields
            self.headerBytes = headerBytes
            self.bodyBytes = bodyBytes
        }
    }

    /// Whether the connection can take another request: false after a GOAWAY, an error or a close.
    package var isUsable: Bool { session != nil && !exchange.goingAway }
    /// When the last request finished (or the connection opened).
    package private(set) var lastUsed = ContinuousClock.now

    private let transport: any HTTP2Transport
    private var session: OpaquePointer?
    private let exchange = Exchange()
    private let authority: String
    private let timeoutSeconds: Int

    /// Connects, shakes hands offering only `h2`, and sends the connection preface.
    ///
    /// - Parameters:
    ///   - timeoutSeconds: for the connection, for each read and write after it, and for each exchange whole.
    ///   - limits: how much of an answer is kept.
    /// - Throws: ``HTTP2Error`` when the host cannot be reached, TLS fails, or the server does not speak HTTP/2.
    package convenience init(
        host: String, port: UInt16, context: TLSClientContext, timeoutSeconds: Int, limits: Limits = Limits()
    ) throws(HTTP2Error) {
        let socket: Socket
        do {
            socket = try Socket.connect(host: host, port: port, timeoutSeconds: timeoutSeconds)
        } catch {
            throw HTTP2Error("cannot connect to \(host):\(port): \(error)", processed: false)
        }
        let tls: TLSClientStream
        do {
            tls = try TLSClientStream(socket: socket, host: host, context: context, protocols: ["h2"])
        } catch {
            socket.close()
            throw HTTP2Error("TLS with \(host):\(port): \(error)", processed: false)
        }
        guard tls.negotiatedProtocol == "h2" else {
            tls.close()
            socket.close()
            throw HTTP2Error("\(host):\(port) does not offer HTTP/2 (ALPN h2)", processed: false)
        }
        try self.init(
            transport: TLSTransport(socket: socket, tls: tls), authority: port == 443 ? host : "\(host):\(port)",
            timeoutSeconds: timeoutSeconds, limits: limits)
    }

    /// Starts HTTP/2 over a connection already open to `authority`, and sends the connection preface.
    /// The fuzz target's transport is bytes in memory (Sources/CampaignMock/UntrustedInput.swift).
    package init(
        transport: any HTTP2Transport, authority: String, timeoutSeconds: Int = 15, limits: Limits = Limits()
    ) throws(HTTP2Error) {
        self.transport = transport
        self.authority = authority
        self.timeoutSeconds = timeoutSeconds
        exchange.limits = limits
        session = Self.makeSession(exchange)
        guard let session else {
            transport.close()
            throw HTTP2Error("setting up HTTP/2", processed: false)
        }
        // No server push; the rest stays at the protocol's defaults.
        var settings = nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0)
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, 1) == 0 else {
            close()
            throw HTTP2Error("setting up HTTP/2", processed: false)
        }
        try flush()
    }

    deinit {
        close()
    }

    /// Sends a request and waits for its whole response, for `timeoutSeconds` at most.
    ///
    /// - Parameter headers: regular headers, lowercase names; the pseudo-headers are added here.
    /// - Throws: ``HTTP2Error``; its `processed` is false when the server certainly did not act on the
    ///   request (refused before it was sent, or a GOAWAY that excluded its stream), so it may be retried.
    package func send(
        _ method: String, _ path: String, headers: [HTTPHeaderField], body: [UInt8]
    ) throws(HTTP2Error) -> Response {
        guard let session, !exchange.goingAway else {
            throw HTTP2Error("the connection is closed", processed: false)
        }
        let fields =
            [
                HTTPHeaderField(":method", method), HTTPHeaderField(":scheme", "https"),
                HTTPHeaderField(":authority", authority), HTTPHeaderField(":path", path),
            ] + headers
        let bodySource = UnsafeMutablePointer<CNGHTTP2_body>.allocate(capacity: 1)
        let bodyBytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(body.count, 1))
        _ = bodyBytes.initialize(from: body)
        bodySource.initialize(
            to: CNGHTTP2_body(bytes: UnsafePointer(bodyBytes.baseAddress), length: body.count, offset: 0))
        defer {
            // nghttp2 may still point at the body while the session lives: an unfinished exchange ends it.
            if exchange.current != nil { close() }
            bodySource.deallocate()
            bodyBytes.deallocate()
        }
        let stream = Self.submit(session, fields, body: body.isEmpty ? nil : bodySource)
        guard stream > 0 else {
            throw HTTP2Error("sending the request: \(String(cString: nghttp2_strerror(stream)))", processed: false)
        }
        exchange.begin(stream)
        try run(within: timeoutSeconds) { exchange in exchange.current?.closed == true }
        lastUsed = .now
        return try exchange.finish()
    }

    /// Whether the server still answers: a PING, and its acknowledgement within `seconds`. A connection the
    /// server or a NAT closed while it was idle, without a GOAWAY, answers false, and a request is never
    /// lost to it. Closes the connection when it is not alive.
    package func isAlive(within seconds: Int) -> Bool {
        guard let session, !exchange.goingAway else { return false }
        exchange.pingAcknowledged = false
        do throws(HTTP2Error) {
            guard nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil) == 0 else {
                throw HTTP2Error("sending a PING", processed: false)
            }
            try run(within: seconds) { exchange in exchange.pingAcknowledged || exchange.goingAway }
        } catch {
            close()
            return false
        }
        return isUsable
    }

    /// Ends the connection; later sends throw.
    package func close() {
        guard let session else { return }
        _ = nghttp2_session_terminate_session(session, UInt32(NGHTTP2_NO_ERROR.rawValue))
        try? flush()
        nghttp2_session_del(session)
        self.session = nil
        exchange.current = nil
        transport.close()
    }

    // MARK: - Moving bytes

    /// Writes and reads until `done` says so, or throws once `seconds` have passed (each read waits for
    /// what is left of them at most).
    private func run(within seconds: Int, until done: (Exchange) -> Bool) throws(HTTP2Error) {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            if let excess = exchange.current?.excess {
                throw HTTP2Error("the answer has \(excess)", processed: true)
            }
            // An answered stream is done: acknowledgements still queued go out with the next request.
            if done(exchange) { return }
            try flush()
            guard let session, nghttp2_session_want_read(session) != 0 else {
                throw HTTP2Error("the server ended the connection before answering", processed: exchange.requestWritten)
            }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else {
                throw HTTP2Error("no complete answer within \(seconds) s", processed: exchange.requestWritten)
            }
            transport.setReadTimeout(seconds: Int(left.components.seconds) + 1)
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { raw throws(TLSError) in try transport.read(into: raw) }
            } catch {
                throw HTTP2Error("reading the answer: \(error)", processed: exchange.requestWritten)
            }
            guard count > 0 else {
                throw HTTP2Error("no answer: the connection closed or timed out", processed: exchange.requestWritten)
            }
            let consumed = buffer.withUnsafeBytes {
                CNGHTTP2_mem_recv(session, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count)
            }
            guard consumed >= 0 else {
                throw HTTP2Error(
                    "the server broke the HTTP/2 protocol: \(String(cString: nghttp2_strerror(Int32(consumed))))",
                    processed: true)
            }
        }
    }

    /// Sends whatever nghttp2 has queued (the preface, settings, acknowledgements, requests). A failure
    /// before the request's last frame was written leaves it unprocessed (the server acts on a request
    /// only once its stream has ended); after, it may have been.
    private func flush() throws(HTTP2Error) {
        guard let session else { return }
        while true {
            var data: UnsafePointer<UInt8>?
            let count = CNGHTTP2_mem_send(session, &data)
            guard count >= 0 else {
                throw HTTP2Error(
                    "HTTP/2: \(String(cString: nghttp2_strerror(Int32(count))))", processed: exchange.requestWritten)
            }
            guard count > 0, let data else { return }
            do {
                try transport.writeAll(Array(UnsafeBufferPointer(start: data, count: count)))
            } catch {
                throw HTTP2Error("sending over TLS: \(error)", processed: exchange.requestWritten)
            }
            // The frames of this chunk were reported to the callbacks as it was made, so an ended request's
            // last frame is in it or in one written before.
            if exchange.requestEnded { exchange.requestWritten = true }
        }
    }

    private static func submit(
        _ session: OpaquePointer, _ fields: [HTTPHeaderField], body: UnsafeMutablePointer<CNGHTTP2_body>?
    ) -> Int32 {
        // nghttp2 copies names and values during the call, so one buffer that lives through it is enough.
        let text = fields.flatMap { Array($0.name.utf8) + Array($0.value.utf8) }
        return text.withUnsafeBufferPointer { bytes in
            let base = UnsafeMutablePointer(mutating: bytes.baseAddress)
            var offset = 0
            var entries: [nghttp2_nv] = []
            for field in fields {
                let nameLength = field.name.utf8.count
                let valueLength = field.value.utf8.count
                entries.append(
                    nghttp2_nv(
                        name: base.map { $0 + offset }, value: base.map { $0 + offset + nameLength },
                        namelen: nameLength,
                        valuelen: valueLength, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                offset += nameLength + valueLength
            }
            return CNGHTTP2_submit_request(session, entries, entries.count, body)
        }
    }

    // MARK: - nghttp2's callbacks

    private static func makeSession(_ exchange: Exchange) -> OpaquePointer? {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { return nil }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, context in
            guard let frame, let name, let value, let context else { return 0 }
            Exchange.of(context).received(
                name: UnsafeBufferPointer(start: name, count: nameLength),
                value: UnsafeBufferPointer(start: value, count: valueLength), on: CNGHTTP2_frame_stream_id(frame))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, data, length, context in
            guard let data, let context else { return 0 }
            Exchange.of(context).received(UnsafeBufferPointer(start: data, count: length), on: stream)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, stream, errorCode, context in
            guard let context else { return 0 }
            Exchange.of(context).closed(stream, errorCode: errorCode)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, context in
            guard let frame, let context else { return 0 }
            if CNGHTTP2_frame_ends_stream(frame) != 0 {
                Exchange.of(context).sentEnd(of: CNGHTTP2_frame_stream_id(frame))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, context in
            guard let frame, let context else { return 0 }
            if CNGHTTP2_frame_is_goaway(frame) != 0 { Exchange.of(context).goingAway = true }
            if CNGHTTP2_frame_is_ping_ack(frame) != 0 { Exchange.of(context).pingAcknowledged = true }
            return 0
        }
        var session: OpaquePointer?
        guard nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(exchange).toOpaque()) == 0
        else { return nil }
        return session
    }
}

/// What an ``HTTP2Connection`` moves its bytes through.
package protocol HTTP2Transport: AnyObject {
    /// Writes all of `bytes`.
    func writeAll(_ bytes: [UInt8]) throws(TLSError)
    /// Reads into `buffer`; 0 at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> Int
    /// Makes the next reads wait `seconds` at most (what is left of an exchange's deadline).
    func setReadTimeout(seconds: Int)
    /// Ends the connection.
    func close()
}

extension HTTP2Transport {
    /// Bytes already in memory never wait.
    package func setReadTimeout(seconds: Int) {}
}

/// TLS over a connected socket, the connection to a provider.
private final class TLSTransport: HTTP2Transport {
    let socket: Socket
    let tls: TLSClientStream

    init(socket: Socket, tls: TLSClientStream) {
        self.socket = socket
        self.tls = tls
    }

    func writeAll(_ bytes: [UInt8]) throws(TLSError) { try tls.writeAll(bytes) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> Int { try tls.read(into: buffer) }

    func setReadTimeout(seconds: Int) { socket.setReceiveTimeout(seconds: seconds) }

    func close() {
        tls.close()
        socket.close()
    }
}

/// What the callbacks collect for the request in flight. The connection holds it for the session's life.
private final class Exchange {
    struct Current {
        var stream: Int32
        var status: Int?
        var headers: [HTTP2Connection.HTTPHeaderField] = []
        var body: [UInt8] = []
        var closed = false
        var errorCode: UInt32 = 0
        /// Every header field received, and their bytes, kept or not.
        var headerFields = 0
        var headerBytes = 0
        /// What went over the limits (`more than 100 header fields`), once something did.
        var excess: String?
    }

    var current: Current?
    var limits = HTTP2Connection.Limits()
    /// A GOAWAY arrived: no new streams.
    var goingAway = false
    /// The PING sent last was acknowledged.
    var pingAcknowledged = false
    /// The request's last frame was made (handed out by nghttp2), and then written to the connection.
    var requestEnded = false
    var requestWritten = false

    static func of(_ context: UnsafeMutableRawPointer) -> Exchange {
        Unmanaged<Exchange>.fromOpaque(context).takeUnretainedValue()
    }

    func begin(_ stream: Int32) {
        current = Current(stream: stream)
        requestEnded = false
        requestWritten = false
    }

    func sentEnd(of stream: Int32) {
        if current?.stream == stream { requestEnded = true }
    }

    func received(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, on stream: Int32) {
        guard var answer = current, answer.stream == stream, answer.excess == nil else { return }
        answer.headerFields += 1
        answer.headerBytes += name.count + value.count
        if answer.headerFields > limits.headerFields {
            answer.excess = "more than \(limits.headerFields) header fields"
        } else if answer.headerBytes > limits.headerBytes {
            answer.excess = "more than \(limits.headerBytes) bytes of headers"
        } else {
            let field = HTTP2Connection.HTTPHeaderField(
                String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
            if field.name == ":status" {
                answer.status = Int(field.value)
            } else if !field.name.hasPrefix(":") {
                answer.headers.append(field)
            }
        }
        current = answer
    }

    func received(_ data: UnsafeBufferPointer<UInt8>, on stream: Int32) {
        guard current?.stream == stream, current?.excess == nil else { return }
        guard (current?.body.count ?? 0) + data.count <= limits.bodyBytes else {
            current?.excess = "a body of more than \(limits.bodyBytes) bytes"
            return
        }
        current?.body.append(contentsOf: data)
    }

    func closed(_ stream: Int32, errorCode: UInt32) {
        guard current?.stream == stream else { return }
        current?.closed = true
        current?.errorCode = errorCode
    }

    /// The response of the finished exchange.
    func finish() throws(HTTP2Error) -> HTTP2Connection.Response {
        guard let done = current else { throw HTTP2Error("no request in flight", processed: false) }
        current = nil
        if let status = done.status {
            return HTTP2Connection.Response(status: status, headers: done.headers, body: done.body)
        }
        // Closed without an answer: REFUSED_STREAM (also what a GOAWAY gives the streams it excludes)
        // promises the request was not processed.
        let refused = done.errorCode == NGHTTP2_REFUSED_STREAM.rawValue
        throw HTTP2Error(
            "the server reset the stream (\(String(cString: nghttp2_http2_strerror(done.errorCode))))",
            processed: !refused)
    }
}

/// Why an HTTP/2 exchange failed.
package struct HTTP2Error: Error, CustomStringConvertible {
    package let message: String
    /// False when the server certainly did not act on the request: it may be sent again.
    package let processed: Bool

    package init(_ message: String, processed: Bool) {
        self.message = message
        self.processed = processed
    }

    package var description: String { message }
}
