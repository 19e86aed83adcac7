package import CampaignMockHTTP
package import CampaignMockSystem

#if canImport(Glibc)
    import CLinux
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A non-blocking TCP socket descriptor. A value type: whoever holds it decides when to close it.
package struct Socket: Sendable, Hashable {
    /// The file descriptor.
    package let descriptor: Int32

    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The outcome of one non-blocking read.
    package enum ReadResult: Equatable {
        case bytes(Int)
        case wouldBlock
        case endOfStream
    }

    /// Opens a listening socket bound to `address`, non-blocking, with `SO_REUSEADDR`.
    package static func listen(on address: SocketAddress, backlog: Int32) throws(SystemCallError) -> Socket {
        let domain = address.family == .ipv4 ? AF_INET : AF_INET6
        let descriptor = try systemCall("socket") { makeStreamSocket(domain: domain) }
        let socket = Socket(descriptor: descriptor)
        do {
            try socket.setOption(SOL_SOCKET, SO_REUSEADDR, 1)
            if address.family == .ipv6 {
                // `::` should accept IPv4 clients too, as `0.0.0.0` users expect.
                try socket.setOption(Int32(IPPROTO_IPV6), IPV6_V6ONLY, 0)
            }
            _ = try address.withSockAddr { (pointer, length) throws(SystemCallError) in
                try systemCall("bind \(address)") { bind(descriptor, pointer, length) }
            }
            try systemCall("listen") { platformListen(descriptor, backlog) }
            try socket.setNonBlocking()
            return socket
        } catch {
            socket.close()
            throw error
        }
    }

    /// Accepts one pending connection, or returns nil when none is waiting.
    package func accept() throws(SystemCallError) -> (Socket, SocketAddress?)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let accepted: Int32
        do {
            accepted = try systemCall("accept") {
                withUnsafeMutablePointer(to: &storage) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                        acceptNonBlocking(descriptor, address, &length)
                    }
                }
            }
        } catch  where isWouldBlock(error) || error.errno == ECONNABORTED || isResetBeforeAccepted(error) {
            return nil
        }
        let socket = Socket(descriptor: accepted)
        try? socket.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        return (socket, SocketAddress(storage: storage))
    }

    /// Reads what is available into `buffer`.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> ReadResult {
        do {
            let count = try systemCall("read") { platformRead(descriptor, buffer.baseAddress, buffer.count) }
            return count == 0 ? .endOfStream : .bytes(count)
        } catch  where isWouldBlock(error) {
            return .wouldBlock
        }
    }

    /// Writes as much of `bytes` as the kernel takes now; 0 when it takes nothing.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) -> Int {
        do {
            return try systemCall("send") { sendNoSignal(descriptor, bytes.baseAddress, bytes.count) }
        } catch  where isWouldBlock(error) {
            return 0
        }
    }

    /// The address the socket is bound to (the real port after binding port 0).
    package func localAddress() throws(SystemCallError) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        try systemCall("getsockname") {
            withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
        }
        guard let address = SocketAddress(storage: storage) else {
            throw SystemCallError(operation: "getsockname", errno: EAFNOSUPPORT)
        }
        return address
    }

    /// Stops sending; the peer reads end-of-stream after what was written.
    package func shutdownWrite() {
        _ = platformShutdown(descriptor, Int32(SHUT_WR))
    }

    /// Closes the descriptor.
    package func close() {
        _ = platformClose(descriptor)
    }

    /// Closes with `SO_LINGER` 0, so the peer sees a TCP RST instead of a clean end.
    package func resetAndClose() {
        var linger = PlatformLinger()
        linger.l_onoff = 1
        linger.l_linger = 0
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<PlatformLinger>.size))
        close()
    }

    private func setOption(_ level: Int32, _ name: Int32, _ value: Int32) throws(SystemCallError) {
        var value = value
        try systemCall("setsockopt") {
            setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    private func setNonBlocking() throws(SystemCallError) {
        let flags = try systemCall("fcntl") { fcntl(descriptor, F_GETFL) }
        try systemCall("fcntl") { fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    }
}

// The platform differences of the calls above, kept in one place.
#if canImport(Glibc)
    private typealias PlatformLinger = Glibc.linger
    private func makeStreamSocket(domain: Int32) -> Int32 {
        Glibc.socket(domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }
    private func acceptNonBlocking(
        _ descriptor: Int32,
        _ address: UnsafeMutablePointer<sockaddr>,
        _ length: UnsafeMutablePointer<socklen_t>
    ) -> Int32 {
        CLinux_accept4(descriptor, address, length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
    }
    private func sendNoSignal(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
    }
    /// `accept4` sets the flags itself: nothing fails after the connection is taken.
    private func isResetBeforeAccepted(_ error: SystemCallError) -> Bool { false }
    private func platformListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 { Glibc.listen(descriptor, backlog) }
    private func platformRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        Glibc.read(descriptor, buffer, count)
    }
    private func platformShutdown(_ descriptor: Int32, _ how: Int32) -> Int32 { Glibc.shutdown(descriptor, how) }
    private func platformClose(_ descriptor: Int32) -> Int32 { Glibc.close(descriptor) }
#elseif canImport(Darwin)
    private typealias PlatformLinger = Darwin.linger
    private func makeStreamSocket(domain: Int32) -> Int32 {
        let descriptor = Darwin.socket(domain, SOCK_STREAM, 0)
        if descriptor >= 0 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return descriptor
    }
    /// Darwin has no `accept4`: the flags are set right after, and a descriptor they cannot be set on is
    /// closed, not leaked (-1 with the failing call's errno, as `accept4` would).
    private func acceptNonBlocking(
        _ descriptor: Int32,
        _ address: UnsafeMutablePointer<sockaddr>,
        _ length: UnsafeMutablePointer<socklen_t>
    ) -> Int32 {
        let accepted = Darwin.accept(descriptor, address, length)
        guard accepted >= 0 else { return accepted }
        var one: Int32 = 1
        let flags = fcntl(accepted, F_GETFL)
        guard flags >= 0, fcntl(accepted, F_SETFL, flags | O_NONBLOCK) == 0, fcntl(accepted, F_SETFD, FD_CLOEXEC) == 0,
            setsockopt(accepted, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size)) == 0
        else {
            let code = errno
            _ = Darwin.close(accepted)
            errno = code
            return -1
        }
        return accepted
    }
    /// A peer that reset before its flags were set makes `fcntl` or `setsockopt` fail with EINVAL: that
    /// connection is gone, the listener is fine (as swift-nio treats it).
    private func isResetBeforeAccepted(_ error: SystemCallError) -> Bool { error.errno == EINVAL }
    private func sendNoSignal(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        send(descriptor, bytes, count, 0)
    }
    private func platformListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 { Darwin.listen(descriptor, backlog) }
    private func platformRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        Darwin.read(descriptor, buffer, count)
    }
    private func platformShutdown(_ descriptor: Int32, _ how: Int32) -> Int32 { Darwin.shutdown(descriptor, how) }
    private func platformClose(_ descriptor: Int32) -> Int32 { Darwin.close(descriptor) }
#endif

extension Socket {
    /// Connects a blocking socket to `host:port` (a name is resolved with getaddrinfo), with send and
    /// receive timeouts. The connection itself is bounded by the same timeout on every system: it is made
    /// non-blocking and waited for with `poll(2)` (macOS does not apply `SO_SNDTIMEO` to `connect`).
    ///
    /// - Throws: ``SystemCallError`` (a name that does not resolve carries the resolver's code; a connection
    ///   not made in time is `ETIMEDOUT`).
    package static func connect(host: String, port: UInt16, timeoutSeconds: Int) throws(SystemCallError) -> Socket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocketType
        var list: UnsafeMutablePointer<addrinfo>?
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let code = getaddrinfo(bare, String(port), &hints, &list)
        guard code == 0, let first = list else { throw SystemCallError(resolving: bare, code: code) }
        defer { freeaddrinfo(list) }
        var lastError = SystemCallError(operation: "connect", errno: ECONNREFUSED)
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            let descriptor = platformSocket(
                entry.pointee.ai_family, entry.pointee.ai_socktype, entry.pointee.ai_protocol)
            guard descriptor >= 0 else { continue }
            let socket = Socket(descriptor: descriptor)
            do {
                try socket.connect(to: entry.pointee, timeoutMilliseconds: Int32(timeoutSeconds * 1000))
                var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
                _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                return socket
            } catch {
                lastError = error
                socket.close()
            }
        }
        throw lastError
    }

    /// Connects to `address` within `timeoutMilliseconds`, then makes the socket blocking again.
    private func connect(to address: addrinfo, timeoutMilliseconds: Int32) throws(SystemCallError) {
        ignoreBrokenPipeOnSocket(descriptor)
        let flags = try systemCall("fcntl") { fcntl(descriptor, F_GETFL) }
        try systemCall("fcntl") { fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
        if platformConnect(descriptor, address.ai_addr, address.ai_addrlen) != 0 {
            guard errno == EINPROGRESS || errno == EINTR else {
                throw SystemCallError(operation: "connect", errno: errno)
            }
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let ready = try systemCall("poll") { poll(&entry, 1, timeoutMilliseconds) }
            guard ready > 0 else { throw SystemCallError(operation: "connect", errno: ETIMEDOUT) }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            try systemCall("getsockopt") { getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) }
            guard failure == 0 else { throw SystemCallError(operation: "connect", errno: failure) }
        }
        try systemCall("fcntl") { fcntl(descriptor, F_SETFL, flags) }
    }

    /// Keeps a write to a peer that has gone from raising `SIGPIPE`, for the whole process: it then fails
    /// with `EPIPE` where it happens. Every command calls it first (`push`, `tail` and `replay` write to
    /// a server that may close first; `serve` to clients that may).
    package static func ignoreBrokenPipeSignal() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// How long a blocking read waits before it fails.
    package func setReceiveTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Blocking read into `buffer`; 0 at end of stream.
    package func readBlocking(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        try systemCall("read") { platformRead(descriptor, buffer.baseAddress, buffer.count) }
    }

    /// Blocking write of all of `bytes`.
    package func writeAll(_ bytes: [UInt8]) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            var failure: SystemCallError?
            let written = bytes.withUnsafeBytes { raw -> Int in
                do throws(SystemCallError) {
                    return try write(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                } catch {
                    failure = error
                    return -1
                }
            }
            if let failure { throw failure }
            guard written > 0 else { throw SystemCallError(operation: "send", errno: EAGAIN) }
            offset += written
        }
    }
}

#if canImport(Glibc)
    private let streamSocketType = Int32(SOCK_STREAM.rawValue)
    private func platformSocket(_ family: Int32, _ type: Int32, _ proto: Int32) -> Int32 {
        Glibc.socket(family, type | Int32(SOCK_CLOEXEC.rawValue), proto)
    }
    private func platformConnect(_ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t)
        -> Int32
    {
        Glibc.connect(descriptor, address, length)
    }
    /// Linux sends with `MSG_NOSIGNAL` instead.
    private func ignoreBrokenPipeOnSocket(_ descriptor: Int32) {}
#elseif canImport(Darwin)
    private let streamSocketType = SOCK_STREAM
    private func platformSocket(_ family: Int32, _ type: Int32, _ proto: Int32) -> Int32 {
        Darwin.socket(family, type, proto)
    }
    private func platformConnect(_ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t)
        -> Int32
    {
        Darwin.connect(descriptor, address, length)
    }
    /// Darwin's `send` has no `MSG_NOSIGNAL`: the socket says it instead.
    private func ignoreBrokenPipeOnSocket(_ descriptor: Int32) {
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    }
#endif
