#if canImport(Glibc)
    import CLinux
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Readiness notification for many descriptors: epoll on Linux, kqueue on Darwin. Level-triggered.
/// Owned and used by one event-loop thread.
package final class Poller {
    /// What a descriptor is watched for.
    package struct Interest: OptionSet, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        package static let read = Interest(rawValue: 1)
        package static let write = Interest(rawValue: 2)
    }

    /// One ready descriptor.
    package struct Event {
        package let descriptor: Int32
        package let readable: Bool
        package let writable: Bool
        /// The peer hung up or the socket has an error; a read will tell which.
        package let hangup: Bool
    }

    private let descriptor: Int32
    // Filled by every wait, on the owning loop's thread only: no run-time exclusivity check (see
    // `Connection`).
    #if canImport(Glibc)
        @exclusivity(unchecked) private var events = [epoll_event](repeating: epoll_event(), count: 256)
    #elseif canImport(Darwin)
        @exclusivity(unchecked) private var events = [kevent](repeating: kevent(), count: 256)
        private var interests: [Int32: Interest] = [:]
    #endif

    package init() throws(SystemCallError) {
        #if canImport(Glibc)
            descriptor = try systemCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        #elseif canImport(Darwin)
            descriptor = try systemCall("kqueue") { kqueue() }
        #endif
    }

    deinit {
        close(descriptor)
    }

    /// Starts watching `fd`.
    package func register(_ fd: Int32, interest: Interest) throws(SystemCallError) {
        #if canImport(Glibc)
            try control(EPOLL_CTL_ADD, fd, interest)
        #elseif canImport(Darwin)
            interests[fd] = []
            try modify(fd, interest: interest)
        #endif
    }

    /// Changes what `fd` is watched for.
    package func modify(_ fd: Int32, interest: Interest) throws(SystemCallError) {
        #if canImport(Glibc)
            try control(EPOLL_CTL_MOD, fd, interest)
        #elseif canImport(Darwin)
            let old = interests[fd] ?? []
            var changes: [kevent] = []
            for (flag, filter) in [(Interest.read, EVFILT_READ), (Interest.write, EVFILT_WRITE)]
            where old.contains(flag) != interest.contains(flag) {
                let action = interest.contains(flag) ? EV_ADD : EV_DELETE
                changes.append(
                    kevent(
                        ident: UInt(fd), filter: Int16(filter), flags: UInt16(action),
                        fflags: 0, data: 0, udata: nil))
            }
            interests[fd] = interest
            try systemCall("kevent") { kevent(descriptor, changes, Int32(changes.count), nil, 0, nil) }
        #endif
    }

    /// Stops watching `fd` (call before closing it).
    package func unregister(_ fd: Int32) {
        #if canImport(Glibc)
            _ = epoll_ctl(descriptor, EPOLL_CTL_DEL, fd, nil)
        #elseif canImport(Darwin)
            try? modify(fd, interest: [])
            interests[fd] = nil
        #endif
    }

    /// Waits up to `timeoutMilliseconds` (-1 = forever) and returns the ready descriptors.
    package func wait(timeoutMilliseconds: Int32) throws(SystemCallError) -> [Event] {
        #if canImport(Glibc)
            let count: Int32
            do {
                count = try systemCall("epoll_wait") {
                    epoll_wait(descriptor, &events, Int32(events.count), timeoutMilliseconds)
                }
            } catch  where error.errno == EINTR {
                return []
            }
            return (0..<Int(count)).map { index in
                let event = events[index]
                let flags = event.events
                return Event(
                    descriptor: event.data.fd,
                    readable: flags & EPOLLIN.rawValue != 0,
                    writable: flags & EPOLLOUT.rawValue != 0,
                    hangup: flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
                )
            }
        #elseif canImport(Darwin)
            var timeout = timespec(
                tv_sec: Int(timeoutMilliseconds / 1000),
                tv_nsec: Int(timeoutMilliseconds % 1000) * 1_000_000)
            let count = try systemCall("kevent") {
                kevent(descriptor, nil, 0, &events, Int32(events.count), timeoutMilliseconds < 0 ? nil : &timeout)
            }
            return (0..<Int(count)).map { index in
                let event = events[index]
                return Event(
                    descriptor: Int32(event.ident),
                    readable: event.filter == Int16(EVFILT_READ),
                    writable: event.filter == Int16(EVFILT_WRITE),
                    hangup: event.flags & UInt16(EV_EOF | EV_ERROR) != 0
                )
            }
        #endif
    }

    #if canImport(Glibc)
        private func control(_ operation: Int32, _ fd: Int32, _ interest: Interest) throws(SystemCallError) {
            var event = epoll_event()
            var flags: UInt32 = 0
            if interest.contains(.read) { flags |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
            if interest.contains(.write) { flags |= EPOLLOUT.rawValue }
            event.events = flags
            event.data.fd = fd
            try systemCall("epoll_ctl") { epoll_ctl(descriptor, operation, fd, &event) }
        }
    #endif
}

/// Wakes a ``Poller`` from another thread: a descriptor the loop watches for reading. On Linux an
/// eventfd (one read empties it, whatever number of wakes it holds), elsewhere a pipe.
package final class Waker: Sendable {
    /// The descriptor the loop registers for reading.
    package let readDescriptor: Int32
    private let writeDescriptor: Int32

    package init() throws(SystemCallError) {
        #if canImport(Glibc)
            let fd = try systemCall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
            readDescriptor = fd
            writeDescriptor = fd
        #else
            var fds: [Int32] = [0, 0]
            try systemCall("pipe") { pipe(&fds) }
            readDescriptor = fds[0]
            writeDescriptor = fds[1]
            for fd in fds {
                let flags = fcntl(fd, F_GETFL)
                _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        #endif
    }

    deinit {
        close(readDescriptor)
        if writeDescriptor != readDescriptor { close(writeDescriptor) }
    }

    /// Makes the next (or current) wait return. Safe from any thread; a full pipe (or counter) already
    /// means "wake".
    package func wake() {
        var one: UInt64 = 1
        _ = write(writeDescriptor, &one, writeDescriptor == readDescriptor ? 8 : 1)
    }

    /// Empties the descriptor; the loop calls it when it is readable.
    package func drain() {
        var buffer: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &buffer) { bytes in
            // An eventfd's counter is read (and reset) at once; a pipe is read until empty.
            while read(readDescriptor, bytes.baseAddress, bytes.count) == bytes.count {}
        }
    }
}
