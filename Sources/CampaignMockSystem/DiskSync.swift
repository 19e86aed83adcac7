#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Flushes what was written to `descriptor` to the disk itself. On macOS `fsync` only reaches the
/// drive's cache, so `F_FULLFSYNC` is asked first (fsync(2), macOS); a file system without it gets
/// `fsync`.
///
/// - Returns: 0, or -1 with `errno` set.
@discardableResult
package func syncToDisk(_ descriptor: Int32) -> Int32 {
    #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
    #endif
    return fsync(descriptor)
}
