import CampaignMockSystem

extension HTTPResponse {
    /// The `Date` and `Server` lines every response starts with, as bytes. An event loop makes one per
    /// second and copies it into each response head whole (written line by line, they were eight
    /// appends, a sixth of a response head).
    package struct Stamp: Sendable {
        package let bytes: [UInt8]

        package init(date: String, server: String) {
            bytes = Array("Date: \(date)\r\nServer: \(server)\r\n".utf8)
        }
    }

    /// The bytes of this response as HTTP/1.1 (RFC 9112 §4, §6).
    ///
    /// - Parameters:
    ///   - date: the `Date` header value.
    ///   - server: the `Server` header value.
    ///   - close: whether to announce `Connection: close`.
    ///   - isHead: answer to HEAD: the headers of the full response, no content (RFC 9110 §9.3.2).
    ///   - chunked: only the head, announcing a body sent later in chunks (RFC 9112 §7.1).
    ///   - announceKeepAlive: say `Connection: keep-alive` when the connection stays open (to HTTP/1.0).
    package func serialized(
        date: String, server: String, close: Bool, isHead: Bool, chunked: Bool = false, announceKeepAlive: Bool = false
    ) -> [UInt8] {
        serialized(
            stamp: Stamp(date: date, server: server), close: close, isHead: isHead, chunked: chunked,
            announceKeepAlive: announceKeepAlive)
    }

    /// The bytes of this response as HTTP/1.1, with `stamp`'s `Date` and `Server` lines.
    package func serialized(
        stamp: Stamp, close: Bool, isHead: Bool, chunked: Bool = false, announceKeepAlive: Bool = false
    ) -> [UInt8] {
        // Written into room reserved for it (``ByteWriter``): every response passes here, and building a
        // String first cost a twentieth of a tracking hit, appending to an array a tenth of a health check.
        // The fixed parts: the status line's 33 bytes at most, the length or `Transfer-Encoding` (38 at
        // most), `Connection: keep-alive` and the blank line: 99.
        var capacity = 128 + status.reasonPhrase.utf8.count + stamp.bytes.count
        for (name, value) in headers { capacity += name.rawValue.utf8.count + value.utf8.count + 4 }
        let sendsBody = !isHead && !status.forbidsBody && !chunked
        if sendsBody { capacity += body.count }
        return ByteWriter.make(capacity: capacity) { bytes in
            func line(_ name: String, _ value: String) {
                bytes.append(text: name)
                bytes.append(": ")
                bytes.append(text: value)
                bytes.append("\r\n")
            }
            bytes.append("HTTP/1.1 ")
            bytes.append(decimal: status.code)
            bytes.append(UInt8(ascii: " "))
            bytes.append(text: status.reasonPhrase)
            bytes.append("\r\n")
            bytes.append(stamp.bytes)
            for (name, value) in headers
            where name != .contentLength && name != .connection && name != .date && name != .server {
                line(name.rawValue, value)
            }
            if chunked {
                bytes.append("Transfer-Encoding: chunked\r\n")
            } else if !status.forbidsBody {
                bytes.append("Content-Length: ")
                bytes.append(decimal: body.count)
                bytes.append("\r\n")
            }
            if close {
                bytes.append("Connection: close\r\n")
            } else if announceKeepAlive {
                // An HTTP/1.0 client keeps the connection only when the answer says so (RFC 9112 §9.3, C.2.2).
                bytes.append("Connection: keep-alive\r\n")
            }
            bytes.append("\r\n")
            if sendsBody { bytes.append(body) }
        }
    }
}
