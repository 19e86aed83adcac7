#if canImport(Glibc)
    import CLinux
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call: the operation's name and the `errno` it left.
@usableFromInline package struct SystemCallError: Error, Equatable, CustomStringConvertible {
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

    /// The error `operation` left in `errno`, nil when it was interrupted (`EINTR`) and is to be retried.
    @usableFromInline init?(failed operation: String) {
        let code = lastErrno()
        if code == EINTR { return nil }
        self.init(operation: operation, errno: code)
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

    @usableFromInline package var description: String {
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
///
/// Inlinable, so that each caller's integer type is specialized and the successful call costs no more
/// than the call itself; the failure is read out of line.
@discardableResult
@inlinable package func systemCall<T: FixedWidthInteger>(_ operation: String, _ body: () -> T) throws(SystemCallError)
    -> T
{
    while true {
        let result = body()
        if result != -1 { return result }
        if let error = SystemCallError(failed: operation) { throw error }
    }
}

/// Whether an error means "try again later" on a non-blocking descriptor.
package func isWouldBlock(_ error: SystemCallError) -> Bool {
    error.errno == EAGAIN || error.errno == EWOULDBLOCK
}

/// A pipe whose two ends are close-on-exec from the start (`pipe2` on Linux; Darwin has none, so the flag is
/// set right after, and its children get only the descriptors they are given: `POSIX_SPAWN_CLOEXEC_DEFAULT`).
package func closeOnExecPipe() throws(SystemCallError) -> (read: Int32, write: Int32) {
    var fds: [Int32] = [-1, -1]
    #if canImport(Glibc)
        try systemCall("pipe2") { CLinux_pipe2(&fds, O_CLOEXEC) }
    #else
        try systemCall("pipe") { pipe(&fds) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    #endif
    return (fds[0], fds[1])
}

/// `mkostemp` with close-on-exec: a new file from `template` (ending in `XXXXXX`), owner-only; returns its
/// descriptor and its path.
package func makeCloseOnExecTemporaryFile(_ template: String) throws(SystemCallError) -> (
    descriptor: Int32, path: String
) {
    var name = Array(template.utf8CString)
    let descriptor = try systemCall("mkostemp") {
        name.withUnsafeMutableBufferPointer { buffer in
            #if canImport(Glibc)
                CLinux_mkostemp(buffer.baseAddress!, O_CLOEXEC)
            #else
                mkostemp(buffer.baseAddress!, O_CLOEXEC)
            #endif
        }
    }
    return (descriptor, name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
}
