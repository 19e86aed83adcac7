/// A malformed request as raw bytes and the status a server must answer it with.
public struct MalformedRequest: Sendable, CustomStringConvertible {
    public let text: String
    public let status: Int

    public init(text: String, status: Int) {
        self.text = text
        self.status = status
    }

    public var description: String { "\(status): \(text.prefix(40).debugDescription)" }

    /// One case per kind of framing error, with the default limits (8 KiB request line, 32 KiB of
    /// headers, 100 fields, 1 MiB body).
    public static let examples: [MalformedRequest] = [
        .init(text: "GET /\r\n\r\n", status: 400),
        .init(text: "GET / HTTP/1.1\nHost: a\n\n", status: 400),
        .init(text: "GET / HTTP/1.1\r\n\r\n", status: 400),
        .init(text: "GET / HTTP/3.0\r\nHost: a\r\n\r\n", status: 505),
        .init(text: "GET /" + String(repeating: "x", count: 9000) + " HTTP/1.1\r\nHost: a\r\n\r\n", status: 414),
        .init(
            text: "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 40000) + "\r\n\r\n", status: 431),
        .init(
            text: "GET / HTTP/1.1\r\nHost: a\r\n" + (0..<150).map { "X-\($0): 1\r\n" }.joined() + "\r\n", status: 431),
        .init(text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n", status: 413),
        .init(text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", status: 400),
        .init(
            text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            status: 400),
        .init(text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", status: 501),
        .init(text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", status: 400),
        .init(text: "GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n folded\r\n\r\n", status: 400),
        .init(text: "GET / HTTP/1.1\r\nHost : a\r\n\r\n", status: 400),
        .init(text: "POST / HTTP/1.1\r\nHost: a\r\nExpect: magic\r\n\r\n", status: 417),
        .init(text: "\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}\r\n\r\n", status: 400),
    ]
}
