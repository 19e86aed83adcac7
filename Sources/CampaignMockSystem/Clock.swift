#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Time readings without Foundation: a monotonic clock for durations and deadlines, and the wall clock.
package enum Clock {
    /// Nanoseconds on the monotonic clock.
    package static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Wall-clock time as (seconds since 1970, nanoseconds).
    package static func wallClock() -> (seconds: Int, nanoseconds: Int) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return (Int(spec.tv_sec), Int(spec.tv_nsec))
    }

    /// Microseconds since 1970 on the wall clock.
    package static func wallClockMicroseconds() -> Int64 {
        let now = wallClock()
        return Int64(now.seconds) * 1_000_000 + Int64(now.nanoseconds / 1000)
    }
}
