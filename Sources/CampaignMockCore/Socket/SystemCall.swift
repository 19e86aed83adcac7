#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call: the operation's name and the `errno` it left.
package struct SystemCallError: Error, Equatable, CustomStringConvertible {
    /// The name of the call, e.g. `bind`.
    package let operation: String
    /// The `errno` value the call reported, or the resolver's `EAI_…` code when ``isResolverCode``.
    package let errno: Int32
    /// `errno` is `getaddrinfo`'s own code, which only `gai_strerror` reads right (`strerror` reads Darwin's
    /// `EAI_NONAME`, 8, as "Exec format error").
    package let isResolverCode: Bool

    package init(operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
        isResolverCode = false
    }

    /// `getaddrinfo` of `host` failed with `code`. `EAI_SYSTEM` leaves the cause in `errno`, which is kept
    /// instead (`gai_strerror` would say only "System error").
    package init(resolving host: String, code: Int32) {
        operation = "getaddrinfo \(host)"
        isResolverCode = code != EAI_SYSTEM
        errno = isResolverCode ? code : lastErrno()
    }

    /// The process (or the system) is out of file descriptors or kernel memory for them: `accept` and
    /// `socket` fail this way until some are closed.
    package var isOutOfDescriptors: Bool {
        !isResolverCode && [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(errno)
    }

    package var description: String {
        isResolverCode
            ? "\(operation) failed: \(String(cString: gai_strerror(errno))) (resolver code \(errno))"
            : "\(operation) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// The calling thread's `errno` (``SystemCallError`` has a property of that name).
private func lastErrno() -> Int32 { errno }

/// Runs a system call that reports failure as -1, retrying on `EINTR`.
///
/// - Returns: the call's non-negative result.
/// - Throws: ``SystemCallError`` with the call's name and `errno`.
@discardableResult
package func systemCall<T: FixedWidthInteger>(_ operation: String, _ body: () -> T) throws(SystemCallError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SystemCallError(operation: operation, errno: code)
    }
}

/// Whether an error means "try again later" on a non-blocking descriptor.
package func isWouldBlock(_ error: SystemCallError) -> Bool {
    error.errno == EAGAIN || error.errno == EWOULDBLOCK
}
