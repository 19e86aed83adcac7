#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM, taken synchronously: block them before any thread starts (threads inherit the
/// mask), then ``wait()`` on the main thread returns the signal that arrived.
package enum ShutdownSignals {
    private static var set: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }

    /// Blocks SIGINT and SIGTERM for this thread and the threads it starts later.
    package static func block() {
        var signals = set
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Waits for SIGINT or SIGTERM and returns its number.
    package static func wait() -> Int32 {
        var signals = set
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return received
    }
}
