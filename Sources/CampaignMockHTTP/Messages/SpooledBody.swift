package import CampaignMockSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which requests may send a body larger than ``HTTPRequestParser/Limits/bodyBytes``, and where such a
/// body waits: in a temporary file, not in memory, so a body of gigabytes costs a read buffer.
package struct BodySpooling: Sendable, Equatable {
    /// A method and a path (not decoded, no query) whose body is spooled.
    package struct Route: Sendable, Hashable {
        package var method: HTTPMethod
        package var path: String

        package init(_ method: HTTPMethod, _ path: String) {
            self.method = method
            self.path = path
        }
    }

    /// The folder of the temporary files (each removed from it as soon as it is open).
    package var directory: String
    /// Largest spooled body (413 beyond).
    package var limit: Int
    package var routes: Set<Route>

    package init(directory: String, limit: Int, routes: Set<Route>) {
        self.directory = directory
        self.limit = limit
        self.routes = routes
    }

    /// Whether a request with `method` and `target` (the path, maybe a `?` and a query) is spooled.
    package func accepts(_ method: HTTPMethod, target: String) -> Bool {
        routes.contains { route in
            guard route.method == method else { return false }
            var target = target
            var path = route.path
            return target.withUTF8 { target in
                path.withUTF8 { path in
                    target.count >= path.count && target.prefix(path.count).elementsEqual(path)
                        && (target.count == path.count || target[path.count] == UInt8(ascii: "?"))
                }
            }
        }
    }
}

/// A request body in an unlinked temporary file. It is written while the request is parsed, then only
/// read, from any thread; the file goes away with the last reference.
package final class SpooledBody: @unchecked Sendable {
    private let descriptor: Int32
    /// Bytes written so far.
    package private(set) var count = 0

    /// Creates the file in `directory` and unlinks it at once: nothing is left behind, even after a crash.
    package init(directory: String) throws(SystemCallError) {
        let file = try makeCloseOnExecTemporaryFile(directory + "/.campaign-mock-body-XXXXXX")
        unlink(file.path)
        self.descriptor = file.descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Adds bytes at the end.
    package func append(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            offset += try systemCall("write") {
                write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            }
        }
        count += bytes.count
    }

    /// Up to `length` bytes from `offset` (fewer at the end).
    package func read(at offset: Int, length: Int) throws(SystemCallError) -> [UInt8] {
        let length = max(0, min(length, count - offset))
        var bytes = [UInt8](repeating: 0, count: length)
        var filled = 0
        while filled < length {
            let read = bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) in
                    try systemCall("pread") {
                        pread(descriptor, buffer.baseAddress! + filled, length - filled, off_t(offset + filled))
                    }
                }
            }
            let count = try read.get()
            if count == 0 { break }
            filled += count
        }
        return filled == length ? bytes : Array(bytes[..<filled])
    }
}

/// Bytes read a piece at a time from wherever they are: a request body in memory or in a file.
package protocol ByteSource: Sendable {
    var count: Int { get }
    /// Up to `length` bytes from `offset` (fewer at the end).
    func read(at offset: Int, length: Int) throws -> [UInt8]
}

extension SpooledBody: ByteSource {}

extension Array: ByteSource where Element == UInt8 {
    package func read(at offset: Int, length: Int) throws -> [UInt8] {
        let start = Swift.min(offset, count)
        return Array(self[start..<Swift.min(start + length, count)])
    }
}

extension HTTPRequest {
    /// The body wherever it is: spooled to a file, or in memory.
    package var bodySource: any ByteSource { spooledBody ?? body }
}
