import CampaignMockSystem

#if canImport(Glibc)
    import CLinux
    import Glibc

    /// ``Poller`` over `epoll(7)`, Linux's default.
    final class EpollSet {
        private let descriptor: Int32
        // Filled by every wait, on the owning loop's thread only: no run-time exclusivity check (see
        // `Connection`).
        @exclusivity(unchecked) private var events = [epoll_event](repeating: epoll_event(), count: 256)

        init() throws(SystemCallError) {
            descriptor = try systemCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        }

        deinit {
            close(descriptor)
        }

        func register(_ fd: Int32, interest: Poller.Interest) throws(SystemCallError) {
            try control(EPOLL_CTL_ADD, fd, interest)
        }

        func modify(_ fd: Int32, interest: Poller.Interest) throws(SystemCallError) {
            try control(EPOLL_CTL_MOD, fd, interest)
        }

        func unregister(_ fd: Int32) {
            _ = epoll_ctl(descriptor, EPOLL_CTL_DEL, fd, nil)
        }

        func wait(timeoutMilliseconds: Int32) throws(SystemCallError) -> [Poller.Readiness] {
            let count = try systemCall("epoll_wait") {
                epoll_wait(descriptor, &events, Int32(events.count), timeoutMilliseconds)
            }
            return (0..<Int(count)).map { index in
                let event = events[index]
                let flags = event.events
                return Poller.Readiness(
                    descriptor: event.data.fd,
                    readable: flags & EPOLLIN.rawValue != 0,
                    writable: flags & EPOLLOUT.rawValue != 0,
                    hangup: flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
                )
            }
        }

        private func control(_ operation: Int32, _ fd: Int32, _ interest: Poller.Interest) throws(SystemCallError) {
            var event = epoll_event()
            var flags: UInt32 = 0
            if interest.contains(.read) { flags |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
            if interest.contains(.write) { flags |= EPOLLOUT.rawValue }
            event.events = flags
            event.data.fd = fd
            try systemCall("epoll_ctl") { epoll_ctl(descriptor, operation, fd, &event) }
        }
    }
#endif
