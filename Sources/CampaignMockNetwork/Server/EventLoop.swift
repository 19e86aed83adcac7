import CampaignMockHTTP
import CampaignMockSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One thread multiplexing many connections over a ``Poller``.
///
/// Everything but the mailbox is confined to the loop's own thread: other threads (handlers replying
/// after a commit, the acceptor handing over a socket, shutdown) only append to `mailbox` and wake it.
/// That is why the class is `@unchecked Sendable`: the mutable state is guarded by that confinement and
/// by the `mailbox` mutex.
final class EventLoop: @unchecked Sendable {
    enum Message {
        case adopt(Socket, SocketAddress?, TLSContext?)
        case reply(connection: UInt64, HTTPReply)
        case stream(connection: UInt64, ResponseStream.Part)
        case stopAccepting
        case stop
    }

    let index: Int
    private let server: HTTPServerCore
    private let poller: Poller
    private let waker: Waker
    private let mailbox = Mutex<[Message]>([])
    /// The mailbox's other array, empty between two looks at the mailbox (see `processMailbox`). Loop
    /// thread only.
    @exclusivity(unchecked) private var spareMailbox: [Message] = []
    private let polling = Atomic<Bool>(false)

    // Looked up for every ready descriptor and reply, on the loop thread only: no run-time exclusivity
    // check (see `Connection`).
    @exclusivity(unchecked) private var connections: [Int32: Connection] = [:]
    @exclusivity(unchecked) private var connectionsByID: [UInt64: Int32] = [:]
    /// The listening sockets this loop accepts on, with the TLS context of HTTPS listeners.
    @exclusivity(unchecked) private var listeners: [Int32: (socket: Socket, tls: TLSContext?)] = [:]
    private var acceptTargets: [EventLoop] = []
    /// While the process is out of file descriptors: when to try accepting again. The listeners are not
    /// watched meanwhile (a level-triggered listener whose `accept` fails would wake the loop at once,
    /// forever), and new clients wait in the listen backlog.
    private var acceptPausedUntil: UInt64?
    /// Whether accepting ran out of descriptors since it last succeeded (logged once per episode).
    private var outOfDescriptors = false
    /// A descriptor held in reserve for running out: closed to take one waiting client, answer it `503`
    /// and close it, then taken again, so a new client hears why at once instead of waiting unanswered.
    private var reserveDescriptor = EventLoop.takeReserve()
    private var acceptBackoff = EventLoop.firstAcceptBackoff
    private static let firstAcceptBackoff: UInt64 = 50_000_000
    private static let longestAcceptBackoff: UInt64 = 1_000_000_000
    private var nextTarget = 0
    private var cachedStamp: (second: Int, stamp: HTTPResponse.Stamp)?
    private var readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
    private var running = true
    private var lastSweep: UInt64 = 0
    private var lastWaitFailureLog: UInt64 = 0
    private var thread: SystemThread?
    /// The loop thread's ``SystemThread/currentID``, taken when it starts.
    private var threadID: UInt = 0
    /// While a handler runs on this thread: the connection it answers, and the response it gave before
    /// returning (delivered right after, without the mailbox). Loop-thread only.
    private var answering: UInt64?
    private var answeredInline: HTTPResponse?

    init(index: Int, server: HTTPServerCore) throws(SystemCallError) {
        self.index = index
        self.server = server
        self.poller = try Poller(server.configuration.poller)
        self.waker = try Waker()
        try poller.register(waker.readDescriptor, interest: .read)
    }

    deinit {
        readBuffer.deallocate()
        if reserveDescriptor >= 0 { Socket(descriptor: reserveDescriptor).close() }
    }

    private static func takeReserve() -> Int32 { open("/dev/null", O_RDONLY | O_CLOEXEC) }

    /// Makes this loop accept connections on `sockets` and hand them round-robin to `loops`.
    func startAccepting(on sockets: [(socket: Socket, tls: TLSContext?)], distributingTo loops: [EventLoop])
        throws(SystemCallError)
    {
        acceptTargets = loops
        for listener in sockets {
            listeners[listener.socket.descriptor] = listener
            try poller.register(listener.socket.descriptor, interest: .read)
        }
    }

    func start() {
        thread = SystemThread(name: "http-loop-\(index)") { [self] in run() }
    }

    func join() {
        thread?.join()
    }

    /// Delivers `message` to the loop thread. Safe from any thread.
    func post(_ message: Message) {
        mailbox.withLock { $0.append(message) }
        // The loop sets `polling` before its last look at the mailbox, so either it sees this
        // message or this sees `polling` and wakes it. The first poster to see it clears it: the loop
        // takes every message when it wakes, so the messages posted meanwhile (a batch's replies,
        // one after another) need no wake of their own.
        if polling.load(ordering: .sequentiallyConsistent),
            polling.exchange(false, ordering: .sequentiallyConsistent)
        {
            waker.wake()
        }
    }

    // MARK: - The loop

    private func run() {
        threadID = SystemThread.currentID
        while running {
            polling.store(true, ordering: .sequentiallyConsistent)
            let pending = mailbox.withLock { !$0.isEmpty }
            let events: [Poller.Readiness]
            do {
                events = try poller.wait(timeoutMilliseconds: pending ? 0 : 100)
            } catch {
                // macOS's poll(2) refuses more descriptors than OPEN_MAX (EINVAL): say so once a second at
                // most, and wait a little, instead of spinning.
                if Clock.monotonicNanoseconds() - lastWaitFailureLog > 1_000_000_000 {
                    lastWaitFailureLog = Clock.monotonicNanoseconds()
                    server.logger.error("the event loop cannot wait: \(error)", ["open": String(connections.count)])
                }
                usleep(10_000)
                events = []
            }
            polling.store(false, ordering: .sequentiallyConsistent)
            let now = Clock.monotonicNanoseconds()
            for event in events {
                if event.descriptor == waker.readDescriptor {
                    waker.drain()
                } else if let listener = listeners[event.descriptor] {
                    acceptConnections(on: listener, now: now)
                } else if let connection = connections[event.descriptor] {
                    handle(event, on: connection, now: now)
                }
            }
            processMailbox()
            if let resumeAt = acceptPausedUntil, now >= resumeAt { resumeAccepting(now: now) }
            if now - lastSweep > 100_000_000 {
                lastSweep = now
                sweep(now: now)
            }
        }
        for connection in Array(connections.values) { close(connection) }
        stopAccepting()
        acceptTargets = []
    }

    private func processMailbox() {
        // The mailbox and `spareMailbox` trade places: the posters append into an emptied array that kept
        // its room, and this thread reads the other. (Taking a copy and emptying the mailbox in place
        // allocated a new array of the old one's room at every wake: past 1 KiB, a malloc that sorts the
        // allocator's fast lists each time, a tenth of a loop's time under load.)
        var messages = spareMailbox
        spareMailbox = []
        mailbox.withLock { swap(&$0, &messages) }
        defer {
            messages.removeAll(keepingCapacity: true)
            spareMailbox = messages
        }
        guard !messages.isEmpty else { return }
        let now = Clock.monotonicNanoseconds()
        for message in messages {
            switch message {
            case .adopt(let socket, let address, let tls):
                adopt(socket, address: address, tls: tls, now: now)
            case .reply(let id, let reply):
                guard let fd = connectionsByID[id], let connection = connections[fd] else {
                    if case .stream(_, let stream) = reply { stream.markClosed() }
                    continue
                }
                deliver(reply, to: connection, now: now)
            case .stream(let id, let event):
                guard let fd = connectionsByID[id], let connection = connections[fd] else { continue }
                stream(event, on: connection, now: now)
            case .stopAccepting:
                stopAccepting()
            case .stop:
                running = false
            }
        }
    }

    // MARK: - Connections

    private func stopAccepting() {
        for listener in listeners.values {
            poller.unregister(listener.socket.descriptor)
            listener.socket.close()
        }
        listeners.removeAll()
    }

    private func acceptConnections(on listener: (socket: Socket, tls: TLSContext?), now: UInt64) {
        for _ in 0..<64 {
            let accepted: (Socket, SocketAddress?)?
            do {
                accepted = try listener.socket.accept()
            } catch {
                guard error.isOutOfDescriptors else { return }
                noteOutOfDescriptors(error)
                switch refuseWithReserve(listener) {
                case .refused: continue
                case .nonePending: return
                case .unavailable: return pauseAccepting(now: now)
                }
            }
            guard let (socket, address) = accepted else { return }
            if outOfDescriptors {
                outOfDescriptors = false
                acceptBackoff = Self.firstAcceptBackoff
                server.logger.warning("accepting connections again", ["open": String(server.connectionCount)])
            }
            guard server.reserveConnection() else {
                // A TLS client could not read a plain 503: it is just closed.
                if listener.tls == nil { HTTPServerCore.refuse(socket) } else { socket.close() }
                continue
            }
            let target = acceptTargets[nextTarget % acceptTargets.count]
            nextTarget &+= 1
            if target === self {
                adopt(socket, address: address, tls: listener.tls, now: now)
            } else {
                target.post(.adopt(socket, address, listener.tls))
            }
        }
    }

    private enum ReserveOutcome { case refused, nonePending, unavailable }

    /// Out of descriptors: the reserve makes room for one waiting client, who is told `503` and closed.
    private func refuseWithReserve(_ listener: (socket: Socket, tls: TLSContext?)) -> ReserveOutcome {
        guard reserveDescriptor >= 0 else { return .unavailable }
        Socket(descriptor: reserveDescriptor).close()
        let accepted = try? listener.socket.accept()
        if let (socket, _) = accepted {
            if listener.tls == nil {
                HTTPServerCore.refuse(socket, reason: "out of file descriptors: try again when clients have left")
            } else {
                socket.close()
            }
        }
        // Another thread may have taken the freed number meanwhile: then accepting pauses instead.
        reserveDescriptor = Self.takeReserve()
        guard reserveDescriptor >= 0 else { return .unavailable }
        return accepted == nil ? .nonePending : .refused
    }

    /// Says once per episode that the process is out of descriptors.
    private func noteOutOfDescriptors(_ error: SystemCallError) {
        guard !outOfDescriptors else { return }
        outOfDescriptors = true
        server.logger.error(
            "out of file descriptors: new clients get 503 until some connections close (existing ones are served)",
            [
                "reason": error.description, "open": String(server.connectionCount),
                "limit": String(HTTPServer.openFilesLimit),
                "hint": "raise the limit (ulimit -n) or close idle clients such as open /_mock/stream readers",
            ])
    }

    /// Stops watching the listeners for a while, longer each time it fails again (up to a second): when
    /// even the reserve could not be had.
    private func pauseAccepting(now: UInt64) {
        for descriptor in listeners.keys { poller.unregister(descriptor) }
        acceptPausedUntil = now + acceptBackoff
        acceptBackoff = min(acceptBackoff * 2, Self.longestAcceptBackoff)
    }

    private func resumeAccepting(now: UInt64) {
        acceptPausedUntil = nil
        for (descriptor, listener) in listeners {
            do {
                try poller.register(descriptor, interest: .read)
            } catch {
                acceptPausedUntil = now + acceptBackoff
                return
            }
            acceptConnections(on: listener, now: now)
            if acceptPausedUntil != nil { return }
        }
    }

    private func adopt(_ socket: Socket, address: SocketAddress?, tls: TLSContext?, now: UInt64) {
        let session: TLSSession?
        do {
            session = try tls.map { (context) throws(TLSError) in try TLSSession(context: context) }
        } catch {
            socket.close()
            server.releaseConnection()
            return
        }
        let connection = Connection(
            id: server.nextConnectionID(), socket: socket, remoteAddress: address,
            limits: server.configuration.limits, spooling: server.configuration.spooling, tls: session,
            handler: server.handler, now: now)
        do {
            try poller.register(socket.descriptor, interest: connection.interest)
        } catch {
            socket.close()
            server.releaseConnection()
            return
        }
        connections[socket.descriptor] = connection
        connectionsByID[connection.id] = socket.descriptor
        if server.isShuttingDown { close(connection) }
    }

    private func handle(_ event: Poller.Readiness, on connection: Connection, now: UInt64) {
        if event.readable || event.hangup {
            guard read(from: connection, now: now) else { return close(connection) }
        }
        if event.writable || connection.hasPendingOutput {
            guard connection.flush(now: now) else { return close(connection) }
        }
        dispatchRequests(on: connection, now: now)
    }

    /// Reads what is available. Returns false when the connection is finished.
    private func read(from connection: Connection, now: UInt64) -> Bool {
        guard connection.wantedInterest.contains(.read) else { return true }
        for _ in 0..<4 {
            let result: Socket.ReadResult
            do {
                result = try connection.socket.read(into: readBuffer)
            } catch {
                return false
            }
            switch result {
            case .wouldBlock:
                return true
            case .endOfStream:
                // A client that half-closes after a complete request still gets its answer; a stream's
                // reader that closes is gone.
                guard connection.awaitingReply && !connection.draining && connection.stream == nil else { return false }
                connection.noteClientFinishedSending()
                return true
            case .bytes(let count):
                // What a stream's reader sends is not read as requests: it is dropped.
                if connection.draining || connection.stream != nil { continue }
                connection.receive(
                    UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]), now: now,
                    server: server.configuration.serverName)
                if count < readBuffer.count { return true }
            }
        }
        return true
    }

    /// Runs the handler for each complete request the connection holds, one at a time. A response the
    /// handler gives before it returns (health, the admin API) is written at once; one given later (after
    /// a commit, a delay, a long poll) comes through the mailbox, and the next request waits for it.
    private func dispatchRequests(on connection: Connection, now: UInt64) {
        let serverName = server.configuration.serverName
        while let request = connection.nextRequest(now: now, server: serverName) {
            let id = connection.id
            let loopThread = threadID
            let reply = ReplyChannel { [self] reply in
                // Only the loop thread reads `answering`; any other thread posts.
                if case .response(let response) = reply, SystemThread.currentID == loopThread, answering == id {
                    answeredInline = response
                    return
                }
                post(.reply(connection: id, reply))
                // Attached after the reply is queued, so the head goes out before any chunk.
                if case .stream(_, let stream) = reply {
                    stream.attach { [self] event in post(.stream(connection: id, event)) }
                }
            }
            answering = id
            server.handler.handle(request, reply: reply)
            answering = nil
            guard let response = answeredInline else { break }
            answeredInline = nil
            connection.complete(with: response, stamp: stamp(), forceClose: server.isShuttingDown, now: now)
        }
        if connection.hasPendingOutput {
            guard connection.flush(now: now) else { return close(connection) }
        }
        updateInterest(connection)
    }

    private func deliver(_ reply: HTTPReply, to connection: Connection, now: UInt64) {
        switch reply {
        case .response(let response):
            connection.complete(with: response, stamp: stamp(), forceClose: server.isShuttingDown, now: now)
            guard connection.flush(now: now) else { return close(connection) }
            dispatchRequests(on: connection, now: now)
        case .drop:
            connection.abandonReply()
            close(connection)
        case .reset:
            connection.abandonReply()
            close(connection, reset: true)
        case .stream(let head, let stream):
            connection.beginStream(stream, head: head, stamp: stamp())
            if server.isShuttingDown { connection.finishStream([]) }
            guard connection.flush(now: now) else { return close(connection) }
            updateInterest(connection)
        }
    }

    private func stream(_ event: ResponseStream.Part, on connection: Connection, now: UInt64) {
        switch event {
        case .chunk(let bytes):
            _ = connection.appendChunk(bytes)
        case .finish(let bytes):
            connection.finishStream(bytes)
        case .abort:
            connection.abandonReply()
            return close(connection, reset: true)
        }
        guard connection.flush(now: now) else { return close(connection) }
        updateInterest(connection)
    }

    /// The `Date` and `Server` lines, made once per second.
    private func stamp() -> HTTPResponse.Stamp {
        let second = Clock.wallClock().seconds
        if let cachedStamp, cachedStamp.second == second { return cachedStamp.stamp }
        let stamp = HTTPResponse.Stamp(
            date: HTTPDate.imfFixdate(secondsSince1970: second), server: server.configuration.serverName)
        cachedStamp = (second, stamp)
        return stamp
    }

    private func updateInterest(_ connection: Connection) {
        let wanted = connection.wantedInterest
        guard wanted != connection.interest else { return }
        do {
            try poller.modify(connection.socket.descriptor, interest: wanted)
            connection.interest = wanted
        } catch {
            close(connection)
        }
    }

    private func close(_ connection: Connection, reset: Bool = false) {
        let fd = connection.socket.descriptor
        guard connections.removeValue(forKey: fd) != nil else { return }
        connectionsByID[connection.id] = nil
        poller.unregister(fd)
        if reset { connection.socket.resetAndClose() } else { connection.socket.close() }
        connection.stream?.markClosed()
        server.releaseConnection()
    }

    private func sweep(now: UInt64) {
        let shuttingDown = server.isShuttingDown
        for connection in Array(connections.values) {
            if shuttingDown && (connection.isIdle || (connection.stream != nil && !connection.hasPendingOutput)) {
                close(connection)
                continue
            }
            switch connection.expiry(now: now, configuration: server.configuration) {
            case .keep:
                break
            case .close:
                close(connection)
            case .timeout(let error):
                connection.fail(error, server: server.configuration.serverName)
                guard connection.flush(now: now) else {
                    close(connection)
                    continue
                }
                updateInterest(connection)
            }
        }
    }
}
