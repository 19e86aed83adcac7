import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A response read off a raw socket.
public struct RawResponse: Sendable {
    public let status: Int
    public let headers: [(name: String, value: String)]
    public let body: [UInt8]

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

public struct RawClientError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A blocking TCP client that sends exactly the bytes it is given: for malformed requests, pipelining
/// and stalls that a real HTTP client library would never produce. Every read has a timeout.
public final class RawHTTPClient {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host:port`; reads and writes give up after `timeoutSeconds` without progress.
    ///
    /// The socket is stored only once connected: an `init` that throws after every stored property is
    /// set runs `deinit` too, and a second close of the number would hit whatever another test had
    /// opened under it since (all test targets share one process).
    public init(port: UInt16, host: String = "127.0.0.1", timeoutSeconds: Double = 10) throws {
        let fd = socket(AF_INET, Int32(streamSocketType), 0)
        guard fd >= 0 else { throw RawClientError("socket failed: \(errno)") }
        let microseconds = Int((timeoutSeconds * 1_000_000).rounded())
        var timeout = timeval(tv_sec: microseconds / 1_000_000, tv_usec: .init(microseconds % 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw RawClientError("connect to \(host):\(port) failed: errno \(code)")
        }
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }

    /// Sends `text` as UTF-8.
    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    public func send(_ bytes: [UInt8]) throws {
        guard sendUntilBlocked(bytes) == bytes.count else { throw RawClientError("write failed: errno \(errno)") }
    }

    /// Sends what the server takes before a write fails or times out (after `timeoutSeconds` without
    /// progress); returns how many bytes that was.
    public func sendUntilBlocked(_ bytes: [UInt8]) -> Int {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            guard written > 0 else { break }
            offset += written
        }
        return offset
    }

    /// Reads one response. `head` true: the response answers a HEAD request (no body follows).
    public func readResponse(head: Bool = false) throws -> RawResponse {
        let headEnd = try readUntil([13, 10, 13, 10])
        let headText = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawClientError("bad status line in \(headText)")
        }
        let headers = lines.map { line -> (String, String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        let response = RawResponse(status: status, headers: headers, body: [])
        let length =
            head || status < 200 || status == 204 || status == 304
            ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
        while buffer.count < length {
            guard try fill() else { throw RawClientError("connection closed inside a body") }
        }
        let body = Array(buffer.prefix(length))
        buffer.removeFirst(length)
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// Reads until the server closes; returns what arrived. Throws on a read timeout.
    public func readUntilClosed() throws -> [UInt8] {
        while try fill() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Whether the server closed the connection (read end-of-stream) within the read timeout.
    /// A reset counts as closed.
    public func isClosedByServer() -> Bool {
        do {
            while try fill() {}
            return true
        } catch let error as RawClientError {
            return error.description.contains("reset")
        } catch {
            return false
        }
    }

    /// The `errno` of the read that ended the connection (`ECONNRESET` for an RST), or 0 for a clean end.
    public func closeReason() -> Int32 {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count > 0 { continue }
            return count == 0 ? 0 : errno
        }
    }

    /// Bytes after the last response read, then whatever one read brings; nil at end-of-stream. For
    /// responses read piece by piece (a stream).
    public func readSome() throws -> [UInt8]? {
        if buffer.isEmpty {
            guard try fill() else { return nil }
        }
        defer { buffer.removeAll() }
        return buffer
    }

    /// Half-closes: the server reads end-of-stream.
    public func shutdownWrite() {
        shutdown(descriptor, Int32(shutdownWriteValue))
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        while true {
            if buffer.count >= marker.count {
                for index in 0...(buffer.count - marker.count)
                where buffer[index..<(index + marker.count)].elementsEqual(marker) {
                    return index
                }
            }
            guard try fill() else { throw RawClientError("connection closed before a complete response head") }
        }
    }

    /// Reads more bytes; false on end-of-stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = read(descriptor, &chunk, chunk.count)
        if count > 0 {
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        if count == 0 { return false }
        if errno == ECONNRESET { throw RawClientError("connection reset by peer") }
        throw RawClientError("read failed or timed out: errno \(errno)")
    }
}

#if canImport(Glibc)
    private let streamSocketType = SOCK_STREAM.rawValue
    private let shutdownWriteValue = SHUT_WR
#elseif canImport(Darwin)
    private let streamSocketType = SOCK_STREAM
    private let shutdownWriteValue = SHUT_WR
#endif
