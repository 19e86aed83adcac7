package import CampaignMockHTTP
package import CampaignMockSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// State shared by the event loops of one server.
final class HTTPServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let handler: any HTTPHandler
    /// For what the transport itself has to say (running out of file descriptors).
    let logger: Logger
    private let openConnections = Atomic<Int>(0)
    private let connectionIDs = Atomic<UInt64>(0)
    private let shuttingDown = Atomic<Bool>(false)

    init(configuration: HTTPServerConfiguration, handler: any HTTPHandler, logger: Logger) {
        self.configuration = configuration
        self.handler = handler
        self.logger = logger
    }

    var connectionCount: Int { openConnections.load(ordering: .relaxed) }
    var isShuttingDown: Bool { shuttingDown.load(ordering: .acquiring) }

    func beginShutdown() { shuttingDown.store(true, ordering: .releasing) }

    func nextConnectionID() -> UInt64 {
        connectionIDs.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Counts a new connection, or returns false when the limit is reached.
    func reserveConnection() -> Bool {
        let count = openConnections.wrappingAdd(1, ordering: .relaxed).newValue
        if count > configuration.maxConnections {
            openConnections.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func releaseConnection() {
        openConnections.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Tells a client over the connection limit why it is turned away, then closes.
    static func refuse(_ socket: Socket, reason: String = "too many open connections") {
        let response = HTTPError(.serviceUnavailable, reason, headers: [.retryAfter: "1"])
            .response.serialized(
                date: HTTPDate.imfFixdate(secondsSince1970: Clock.wallClock().seconds),
                server: "campaign-mock", close: true, isHead: false)
        _ = response.withUnsafeBytes { try? socket.write($0) }
        // Closing with the request unread would send a reset, and the client would lose the answer with
        // it: what it sent so far is read and dropped first.
        socket.shutdownWrite()
        withUnsafeTemporaryAllocation(byteCount: 16384, alignment: 16) { buffer in
            for _ in 0..<4 {
                guard case .bytes = (try? socket.read(into: buffer)) ?? .endOfStream else { break }
            }
        }
        socket.close()
    }
}

/// An HTTP/1.1 server on non-blocking POSIX sockets.
///
/// A fixed set of event loops (``HTTPServerConfiguration/eventLoopCount``, one per core by default)
/// each multiplex their connections with epoll (`poll(2)` on macOS). A thread per connection would
/// pay two context switches per request; the loops keep a slow or stalled client from costing more
/// than its buffers, and the handler decides when to answer through its ``ReplyChannel``.
package final class HTTPServer: Sendable {
    private let core: HTTPServerCore
    private let loops: [EventLoop]
    /// The plain HTTP address, with the real port when port 0 was asked for; nil without plain HTTP.
    package let plainAddress: SocketAddress?
    /// The HTTPS address, with the real port; nil without HTTPS.
    package let tlsAddress: SocketAddress?

    /// The first address the server listens on (plain HTTP when it has it).
    package var localAddress: SocketAddress { plainAddress ?? tlsAddress! }

    /// Binds the listening sockets and starts the event loops.
    ///
    /// - Throws: ``SystemCallError`` when an address cannot be bound (in use, not local, no permission).
    package init(configuration: HTTPServerConfiguration, handler: any HTTPHandler, logger: Logger = .silent)
        throws(SystemCallError)
    {
        HTTPServer.prepareProcess()
        core = HTTPServerCore(configuration: configuration, handler: handler, logger: logger)
        var sockets: [(socket: Socket, tls: TLSContext?)] = []
        do {
            if configuration.plainHTTP {
                sockets.append((try Socket.listen(on: configuration.address, backlog: configuration.backlog), nil))
            }
            if let tls = configuration.tls {
                sockets.append((try Socket.listen(on: tls.address, backlog: configuration.backlog), tls.context))
            }
            precondition(!sockets.isEmpty, "a server needs plain HTTP, HTTPS or both")
            plainAddress = configuration.plainHTTP ? try sockets[0].socket.localAddress() : nil
            tlsAddress = configuration.tls == nil ? nil : try sockets[sockets.count - 1].socket.localAddress()
            var loops: [EventLoop] = []
            for index in 0..<max(1, configuration.eventLoopCount) {
                loops.append(try EventLoop(index: index, server: core))
            }
            self.loops = loops
            try loops[0].startAccepting(on: sockets, distributingTo: loops)
        } catch {
            for listener in sockets { listener.socket.close() }
            throw error
        }
        for loop in loops { loop.start() }
    }

    /// How it listens and reads requests (limits, spooled bodies).
    package var configuration: HTTPServerConfiguration { core.configuration }

    /// Open client connections right now.
    package var connectionCount: Int { core.connectionCount }

    /// Whether ``shutdown(gracePeriodMilliseconds:)`` has begun.
    package var isShuttingDown: Bool { core.isShuttingDown }

    /// Stops accepting, lets requests in flight finish (their responses close the connection),
    /// waits up to `gracePeriodMilliseconds` for connections to end, then closes the rest.
    /// Blocks until the loops have stopped.
    package func shutdown(gracePeriodMilliseconds: Int = 5000) {
        guard !core.isShuttingDown else { return }
        core.beginShutdown()
        loops[0].post(.stopAccepting)
        let deadline = Clock.monotonicNanoseconds() + UInt64(gracePeriodMilliseconds) * 1_000_000
        while core.connectionCount > 0 && Clock.monotonicNanoseconds() < deadline {
            usleep(5000)
        }
        for loop in loops { loop.post(.stop) }
        for loop in loops { loop.join() }
    }

    /// Raises the open-file limit as far as the system lets it (a server holds many sockets) and
    /// ignores SIGPIPE, so a client that goes away surfaces as an error on its connection, not a dead
    /// process. Running out of descriptors anyway is handled by the acceptor (``EventLoop``).
    private static func prepareProcess() {
        Socket.ignoreBrokenPipeSignal()
        var limit = rlimit()
        // Only ever raised: on macOS a soft limit already above OPEN_MAX stays as it is.
        if getrlimit(openFilesResource, &limit) == 0, case let target = min(limit.rlim_max, largestOpenFilesLimit),
            limit.rlim_cur < target
        {
            limit.rlim_cur = target
            _ = setrlimit(openFilesResource, &limit)
        }
    }

    /// The soft limit in force: most descriptors this process may hold.
    static var openFilesLimit: Int {
        var limit = rlimit()
        guard getrlimit(openFilesResource, &limit) == 0 else { return 0 }
        return limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }
}

#if canImport(Glibc)
    private let openFilesResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    /// Linux takes the hard limit as it is.
    private let largestOpenFilesLimit = rlim_t.max
#elseif canImport(Darwin)
    private let openFilesResource = RLIMIT_NOFILE
    /// macOS refuses a soft limit above OPEN_MAX (`setrlimit` fails with EINVAL when asked for the hard
    /// limit, which is often RLIM_INFINITY): setrlimit(2), COMPATIBILITY.
    private let largestOpenFilesLimit = rlim_t(OPEN_MAX)
#endif
