package import CampaignMockSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Readiness notification for many descriptors, level-triggered: epoll on Linux, `poll(2)` everywhere.
/// macOS uses `poll(2)`, and so can Linux (``Mechanism/poll``), which is how the Linux tests run the
/// loop a Mac runs. Owned and used by one event-loop thread.
package final class Poller {
    /// What a descriptor is watched for.
    package struct Interest: OptionSet, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        package static let read = Interest(rawValue: 1)
        package static let write = Interest(rawValue: 2)
    }

    /// One ready descriptor.
    package struct Readiness {
        package let descriptor: Int32
        package let readable: Bool
        package let writable: Bool
        /// The peer hung up or the socket has an error; a read will tell which.
        package let hangup: Bool
    }

    /// The system call behind a poller.
    package enum Mechanism: String, Sendable, CaseIterable, CustomStringConvertible {
        #if canImport(Glibc)
            /// `epoll(7)`: cost independent of the number of connections watched.
            case epoll
        #endif
        /// `poll(2)`: POSIX, one array of watched descriptors handed to the kernel on each wait.
        case poll

        /// epoll on Linux, `poll(2)` elsewhere.
        package static var platformDefault: Mechanism {
            #if canImport(Glibc)
                .epoll
            #else
                .poll
            #endif
        }

        package var description: String { rawValue }
    }

    private enum Backend {
        #if canImport(Glibc)
            case epoll(EpollSet)
        #endif
        case poll(PollSet)
    }

    private let backend: Backend

    package init(_ mechanism: Mechanism = .platformDefault) throws(SystemCallError) {
        switch mechanism {
        #if canImport(Glibc)
            case .epoll: backend = .epoll(try EpollSet())
        #endif
        case .poll: backend = .poll(PollSet())
        }
    }

    /// Starts watching `fd`.
    package func register(_ fd: Int32, interest: Interest) throws(SystemCallError) {
        switch backend {
        #if canImport(Glibc)
            case .epoll(let set): try set.register(fd, interest: interest)
        #endif
        case .poll(let set): set.register(fd, interest: interest)
        }
    }

    /// Changes what `fd` is watched for.
    package func modify(_ fd: Int32, interest: Interest) throws(SystemCallError) {
        switch backend {
        #if canImport(Glibc)
            case .epoll(let set): try set.modify(fd, interest: interest)
        #endif
        case .poll(let set): try set.modify(fd, interest: interest)
        }
    }

    /// Stops watching `fd` (call before closing it).
    package func unregister(_ fd: Int32) {
        switch backend {
        #if canImport(Glibc)
            case .epoll(let set): set.unregister(fd)
        #endif
        case .poll(let set): set.unregister(fd)
        }
    }

    /// Waits up to `timeoutMilliseconds` (-1 = forever) and returns the ready descriptors.
    package func wait(timeoutMilliseconds: Int32) throws(SystemCallError) -> [Readiness] {
        switch backend {
        #if canImport(Glibc)
            case .epoll(let set): try set.wait(timeoutMilliseconds: timeoutMilliseconds)
        #endif
        case .poll(let set): try set.wait(timeoutMilliseconds: timeoutMilliseconds)
        }
    }
}

/// Wakes a ``Poller`` from another thread: the read end of a non-blocking pipe, which the loop watches
/// for reading. A pipe on every system, so the path a Mac takes is the one the Linux tests take.
package final class Waker: Sendable {
    /// The descriptor the loop registers for reading.
    package let readDescriptor: Int32
    private let writeDescriptor: Int32

    package init() throws(SystemCallError) {
        (readDescriptor, writeDescriptor) = try closeOnExecPipe()
        for fd in [readDescriptor, writeDescriptor] {
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        }
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// Makes the next (or current) wait return. Safe from any thread; a full pipe already means "wake".
    package func wake() {
        var one: UInt8 = 1
        _ = write(writeDescriptor, &one, 1)
    }

    /// Empties the pipe; the loop calls it when it is readable.
    package func drain() {
        var buffer: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &buffer) { bytes in
            while read(readDescriptor, bytes.baseAddress, bytes.count) == bytes.count {}
        }
    }
}
