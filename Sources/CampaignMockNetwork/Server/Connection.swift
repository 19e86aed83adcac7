import CampaignMockHTTP
import CampaignMockSystem

/// One client connection's state. Confined to the thread of the ``EventLoop`` that owns it.
///
/// It reads bytes into the parser, hands one request at a time to the handler (so pipelined requests
/// are answered in order and see each other's effects), writes responses, enforces the timeouts, and
/// closes gracefully: after a final response it stops sending and drains what the client still sends
/// for a moment, so the response is not destroyed by a TCP RST (RFC 9112 §9.6).
///
/// The two buffers changed in place on every request are marked `@exclusivity(unchecked)`: confined to
/// one thread and never passed `inout` twice at once, they need no run-time exclusivity check, which
/// (a thread-local lookup each time) cost about 80 instructions per access, several per request.
final class Connection {
    let id: UInt64
    let socket: Socket
    let remoteAddress: SocketAddress?
    @exclusivity(unchecked) var parser: HTTPRequestParser
    /// Decides on the head of a request whose body is large or awaited (``HTTPHandler/admitHead(_:)``).
    /// Kept here, so the requests that never need it do not copy it.
    private let handler: any HTTPHandler
    /// The TLS session on an HTTPS listener; nil on plain HTTP.
    private let tls: TLSSession?
    private var receivedAnyByte = false

    /// Bytes waiting to be written, and how many of them already were.
    @exclusivity(unchecked) private(set) var output: [UInt8] = []
    private var outputOffset = 0

    /// A request is with the handler; nothing more is parsed until it answers.
    private(set) var awaitingReply = false
    /// The client finished sending (end of stream) while a request was with the handler: its answer
    /// still goes out, then the connection closes.
    private var clientFinishedSending = false
    /// The streamed body being sent, when the reply was a stream; the connection closes when it ends.
    private(set) var stream: ResponseStream?
    private var replyIsToHead = false
    private var replyKeepsAlive = true
    /// The request was HTTP/1.0: a connection kept open must be announced.
    private var replyIsHTTP10 = false
    /// After the output is flushed, the connection closes.
    private(set) var closeAfterFlush = false
    /// Write side shut; reading and discarding until the peer closes or the deadline passes.
    private(set) var draining = false

    /// Monotonic times for the timeouts.
    private var idleSince: UInt64
    private var requestStartedAt: UInt64 = 0
    private var bodyStartedAt: UInt64 = 0
    private var lastWriteProgress: UInt64 = 0
    private var drainDeadline: UInt64 = 0
    /// When the connection to an HTTPS listener opened: its handshake must finish within the header timeout.
    private let handshakeStartedAt: UInt64

    /// What the poller watches for now.
    var interest: Poller.Interest = .read

    init(
        id: UInt64, socket: Socket, remoteAddress: SocketAddress?, limits: HTTPRequestParser.Limits,
        spooling: BodySpooling?, tls: TLSSession?, handler: any HTTPHandler, now: UInt64
    ) {
        self.handler = handler
        self.id = id
        self.socket = socket
        self.remoteAddress = remoteAddress
        self.parser = HTTPRequestParser(limits: limits, spooling: spooling)
        self.tls = tls
        self.idleSince = now
        self.handshakeStartedAt = now
    }

    /// What a connection reads ahead while its request is with the handler (pipelined requests wait in
    /// the parser); past it, reading stops until the answer is out.
    static let readAheadLimit = 65536

    /// What the poller should watch given the state.
    ///
    /// Reading goes on while a request is with the handler, up to ``readAheadLimit``: a client that waits
    /// for its answer sends nothing meanwhile, so the descriptor stays quiet, and its watch is not changed
    /// twice per request (two `epoll_ctl` calls per tracking hit, most of the loop's system calls after
    /// the read and the write).
    var wantedInterest: Poller.Interest {
        var wanted: Poller.Interest = []
        // A streaming connection reads too, to notice the client going away.
        if draining || stream != nil {
            wanted.insert(.read)
        } else if !closeAfterFlush
            && (!awaitingReply || (!clientFinishedSending && parser.unparsedByteCount < Self.readAheadLimit))
        {
            wanted.insert(.read)
        }
        if outputOffset < output.count { wanted.insert(.write) }
        return wanted
    }

    var hasPendingOutput: Bool { outputOffset < output.count }

    /// Whether the connection may be closed now without losing a request or a response.
    var isIdle: Bool { !awaitingReply && !hasPendingOutput && !parser.hasPartialRequest }

    // MARK: - Input

    /// Takes bytes read from the socket: decrypts them on an HTTPS listener, feeds the parser.
    func receive(_ bytes: UnsafeRawBufferPointer, now: UInt64, server: String) {
        if requestStartedAt == 0 { requestStartedAt = now }
        guard let tls else {
            parser.append(bytes)
            return
        }
        if !receivedAnyByte, let first = bytes.first, first >= UInt8(ascii: "A") && first <= UInt8(ascii: "Z") {
            // A TLS connection starts with a handshake record (0x16); an uppercase letter is an HTTP method.
            receivedAnyByte = true
            let error = HTTPError(.badRequest, "this port speaks HTTPS; use an https:// URL")
            let date = HTTPDate.imfFixdate(secondsSince1970: Clock.wallClock().seconds)
            append(error.response.serialized(date: date, server: server, close: true, isHead: false))
            closeAfterFlush = true
            return
        }
        receivedAnyByte = true
        do {
            let plaintext = try tls.receive(bytes)
            append(tls.takeOutput())
            plaintext.withUnsafeBytes { parser.append($0) }
            if tls.receivedCloseNotify && !awaitingReply { closeAfterFlush = true }
        } catch {
            // Send the alert OpenSSL prepared, then close: nothing more can be said on this connection.
            append(tls.takeOutput())
            closeAfterFlush = true
        }
    }

    /// Whether an HTTPS handshake is still under way.
    var isHandshaking: Bool { tls.map { !$0.isHandshakeComplete } ?? false }

    /// Parses buffered input. Returns the next complete request to dispatch, if any.
    func nextRequest(now: UInt64, server: String) -> HTTPRequest? {
        while !awaitingReply && !closeAfterFlush && !draining {
            do {
                guard let event = try parser.next() else {
                    if parser.isReadingBody && bodyStartedAt == 0 { bodyStartedAt = now }
                    if !parser.hasPartialRequest { requestStartedAt = 0 }
                    return nil
                }
                // Consumed, so the request's fields are not shared with the event and change in place.
                switch consume event {
                case .head(var head):
                    stamp(&head, now: now)
                    switch handler.admitHead(head) {
                    case .proceed(let lease):
                        if case .continueExpected = try parser.admit(lease: lease) { expectContinue(now: now) }
                    case .refuse(let response):
                        // Nothing of the body is read: the answer, then the close.
                        let date = HTTPDate.imfFixdate(secondsSince1970: Clock.wallClock().seconds)
                        enqueue(
                            response.serialized(
                                date: date, server: server, close: true, isHead: head.method == .head))
                        closeAfterFlush = true
                        enqueueCloseNotify()
                    }
                case .continueExpected:
                    expectContinue(now: now)
                case .request(var request):
                    stamp(&request, now: now)
                    awaitingReply = true
                    replyIsToHead = request.method == .head
                    replyKeepsAlive = request.wantsKeepAlive
                    replyIsHTTP10 = request.version.major == 1 && request.version.minor == 0
                    requestStartedAt = 0
                    bodyStartedAt = 0
                    return request
                }
            } catch {
                fail(error, server: server)
                return nil
            }
        }
        return nil
    }

    /// Where and when the request came from.
    @inline(__always)
    private func stamp(_ request: inout HTTPRequest, now: UInt64) {
        request.remoteAddress = remoteAddress
        request.receivedAt = now
        request.isSecure = tls != nil
    }

    /// RFC 9110 §10.1.1: an interim 100 lets the client send the body.
    private func expectContinue(now: UInt64) {
        enqueue(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        bodyStartedAt = now
    }

    /// Answers a malformed request or a timeout and closes after it.
    func fail(_ error: HTTPError, server: String) {
        let date = HTTPDate.imfFixdate(secondsSince1970: Clock.wallClock().seconds)
        enqueue(error.response.serialized(date: date, server: server, close: true, isHead: false))
        closeAfterFlush = true
        enqueueCloseNotify()
    }

    // MARK: - Replies

    /// Queues the handler's response. `forceClose` is set while the server shuts down.
    func complete(with response: HTTPResponse, stamp: HTTPResponse.Stamp, forceClose: Bool, now: UInt64) {
        let close = forceClose || !replyKeepsAlive || response.headers.hasToken("close", in: .connection)
        enqueue(
            response.serialized(
                stamp: stamp, close: close, isHead: replyIsToHead, announceKeepAlive: replyIsHTTP10))
        awaitingReply = false
        idleSince = now
        if close {
            closeAfterFlush = true
            enqueueCloseNotify()
        }
    }

    /// Starts a streamed reply: the head now (chunked), the chunks as the producer writes them.
    func beginStream(_ stream: ResponseStream, head: HTTPResponse, stamp: HTTPResponse.Stamp) {
        enqueue(head.serialized(stamp: stamp, close: true, isHead: false, chunked: true))
        self.stream = stream
    }

    /// Queues one chunk of the stream. Returns false when the reader is too far behind: the stream then
    /// ends with its overflow message, and the connection closes once that is sent.
    func appendChunk(_ bytes: [UInt8]) -> Bool {
        guard let stream, !closeAfterFlush else { return false }
        if !stream.waitsForReader && output.count - outputOffset + bytes.count > stream.bufferLimit {
            finishStream(stream.overflowChunk)
            return false
        }
        enqueueChunk(bytes)
        return true
    }

    /// Ends the stream with `bytes` and the last chunk; the connection closes after it.
    func finishStream(_ bytes: [UInt8]) {
        guard let stream, !closeAfterFlush else { return }
        // The producer stops now, though the last bytes may take a while to reach a slow reader.
        stream.markClosed()
        enqueueChunk(bytes)
        enqueue(Array("0\r\n\r\n".utf8))
        awaitingReply = false
        closeAfterFlush = true
        enqueueCloseNotify()
    }

    private func enqueueChunk(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        enqueue(Array("\(String(bytes.count, radix: 16))\r\n".utf8) + bytes + [13, 10])
    }

    /// Notes the end of the client's stream while its request is with the handler: reading stops (the
    /// end would be reported again and again), the answer still goes out.
    func noteClientFinishedSending() {
        clientFinishedSending = true
    }

    /// Closes without a reply; the request is forgotten.
    func abandonReply() {
        awaitingReply = false
    }

    // MARK: - Output

    /// Queues response bytes, encrypted on an HTTPS connection.
    private func enqueue(_ bytes: [UInt8]) {
        guard let tls else { return append(bytes) }
        do {
            append(try tls.encrypt(bytes))
        } catch {
            closeAfterFlush = true
        }
    }

    private func enqueueCloseNotify() {
        if let tls { append(tls.closeNotify()) }
    }

    /// Queues bytes as they are.
    private func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if outputOffset == output.count {
            output = bytes
            outputOffset = 0
        } else {
            output.append(contentsOf: bytes)
        }
    }

    /// Writes what the socket takes. Returns false when the connection broke.
    func flush(now: UInt64) -> Bool {
        while outputOffset < output.count {
            let written: Int
            do {
                written = try output.withUnsafeBytes { bytes in
                    try socket.write(UnsafeRawBufferPointer(rebasing: bytes[outputOffset...]))
                }
            } catch {
                return false
            }
            if written == 0 { break }
            outputOffset += written
            lastWriteProgress = now
        }
        stream?.noteUnsent(output.count - outputOffset)
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: output.count <= 65536)
            outputOffset = 0
            if closeAfterFlush && !draining {
                socket.shutdownWrite()
                draining = true
                drainDeadline = now + 2_000_000_000
            }
        }
        return true
    }

    // MARK: - Timeouts

    /// What the sweep should do with this connection.
    enum Expiry {
        case keep
        case close
        case timeout(HTTPError)
    }

    func expiry(now: UInt64, configuration: HTTPServerConfiguration) -> Expiry {
        func elapsed(_ since: UInt64, _ limitMilliseconds: Int) -> Bool {
            since != 0 && now > since && (now - since) / 1_000_000 > UInt64(limitMilliseconds)
        }
        if stream != nil && !closeAfterFlush {
            // A stream may stay quiet for long; only a reader that stopped reading is cut.
            return hasPendingOutput && elapsed(lastWriteProgress, configuration.writeTimeoutMilliseconds)
                ? .close : .keep
        }
        if awaitingReply { return .keep }
        if hasPendingOutput {
            return elapsed(lastWriteProgress, configuration.writeTimeoutMilliseconds) ? .close : .keep
        }
        if draining { return now > drainDeadline ? .close : .keep }
        if closeAfterFlush { return .keep }
        if isHandshaking {
            // No HTTP can be spoken before the handshake completes: a late client is just closed.
            return elapsed(handshakeStartedAt, configuration.headerTimeoutMilliseconds) ? .close : .keep
        }
        if bodyStartedAt != 0 {
            return elapsed(bodyStartedAt, configuration.bodyTimeoutMilliseconds)
                ? .timeout(HTTPError(.requestTimeout, "timed out waiting for the request body")) : .keep
        }
        if requestStartedAt != 0 {
            return elapsed(requestStartedAt, configuration.headerTimeoutMilliseconds)
                ? .timeout(HTTPError(.requestTimeout, "timed out waiting for the request header")) : .keep
        }
        return elapsed(idleSince, configuration.idleTimeoutMilliseconds) ? .close : .keep
    }
}
