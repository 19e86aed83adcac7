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
        var head = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        head += "Date: \(date)\r\nServer: \(server)\r\n"
        for (name, value) in headers
        where name != .contentLength && name != .connection && name != .date && name != .server {
            head += "\(name.rawValue): \(value)\r\n"
        }
        if chunked {
            head += "Transfer-Encoding: chunked\r\n"
        } else if !status.forbidsBody {
            head += "Content-Length: \(body.count)\r\n"
        }
        if close {
            head += "Connection: close\r\n"
        } else if announceKeepAlive {
            // An HTTP/1.0 client keeps the connection only when the answer says so (RFC 9112 §9.3, C.2.2).
            head += "Connection: keep-alive\r\n"
        }
        head += "\r\n"
        var bytes = Array(head.utf8)
        if !isHead && !status.forbidsBody && !chunked {
            bytes.append(contentsOf: body)
        }
        return bytes
    }
}
