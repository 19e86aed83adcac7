#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system calls the commands make besides printing (``Output``), in one place: the commands themselves
/// import no C library.
enum SystemCalls {
    /// Whether standard output is a terminal (colours; a warning before binary output).
    static var standardOutputIsTerminal: Bool { isatty(1) != 0 }

    /// Sleeps `milliseconds`, on through the signals that interrupt it.
    static func sleep(milliseconds: Int) {
        var pause = timespec(tv_sec: milliseconds / 1000, tv_nsec: milliseconds % 1000 * 1_000_000)
        var left = timespec()
        while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
    }

    /// Whether this process may read `path`.
    static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// Whether `path` is a directory this process may open.
    static func isDirectory(_ path: String) -> Bool {
        guard let directory = opendir(path) else { return false }
        closedir(directory)
        return true
    }

    /// The name of a signal ``CampaignMockSystem/ShutdownSignals`` waits for.
    static func name(ofSignal signal: Int32) -> String {
        signal == SIGINT ? "SIGINT" : "SIGTERM"
    }
}
