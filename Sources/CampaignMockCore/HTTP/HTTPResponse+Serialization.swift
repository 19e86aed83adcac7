extension HTTPResponse {
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
        // Bytes appended directly: every response passes here, and building a String first cost a
        // twentieth of a tracking hit.
        var bytes: [UInt8] = []
        let capacity: Int = 128 + date.utf8.count + server.utf8.count + body.count
        bytes.reserveCapacity(capacity + 256)
        // Single bytes appended one by one: an array literal is an allocation.
        func lineEnd() {
            bytes.append(13)
            bytes.append(10)
        }
        func line(_ name: String, _ value: String) {
            bytes += name.utf8
            bytes.append(UInt8(ascii: ":"))
            bytes.append(UInt8(ascii: " "))
            bytes += value.utf8
            lineEnd()
        }
        bytes += "HTTP/1.1 ".utf8
        ASCII.appendDecimal(status.code, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes += status.reasonPhrase.utf8
        lineEnd()
        line("Date", date)
        line("Server", server)
        for (name, value) in headers
        where name != .contentLength && name != .connection && name != .date && name != .server {
            line(name.rawValue, value)
        }
        if chunked {
            line("Transfer-Encoding", "chunked")
        } else if !status.forbidsBody {
            bytes += "Content-Length: ".utf8
            ASCII.appendDecimal(body.count, to: &bytes)
            lineEnd()
        }
        if close {
            line("Connection", "close")
        } else if announceKeepAlive {
            // An HTTP/1.0 client keeps the connection only when the answer says so (RFC 9112 §9.3, C.2.2).
            line("Connection", "keep-alive")
        }
        lineEnd()
        if !isHead && !status.forbidsBody && !chunked {
            bytes.append(contentsOf: body)
        }
        return bytes
    }
}
