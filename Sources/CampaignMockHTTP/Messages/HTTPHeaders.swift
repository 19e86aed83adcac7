import CampaignMockSystem

/// A header field name, compared without regard to ASCII case (RFC 9110 §5.1).
package struct HTTPHeaderName: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The name as written.
    package let rawValue: String
    /// The lowercase form used for comparison.
    package let canonical: String
    /// A hash of `canonical` (FNV-1a), made while lowering: two names with different keys differ, so most
    /// comparisons (a header list is searched by name several times per request) end without
    /// comparing strings, which Swift does through a slow path whenever two strings differ.
    private let key: UInt64

    package init(rawValue: String) {
        var bytes = rawValue
        if let name = bytes.withUTF8({ $0.allSatisfy { $0 < 0x80 } ? Self(ascii: $0) : nil }) {
            self = name
        } else {
            self.rawValue = rawValue
            canonical = rawValue.lowercased()
            key = Self.key(of: canonical.utf8)
        }
    }

    /// The name a request's header line gives, as its bytes: a token, so ASCII (RFC 9110 §5.1).
    package init(token: ArraySlice<UInt8>) {
        self = token.withUnsafeBufferPointer { Self(ascii: $0) }
    }

    /// Names are tokens, ASCII: lowered byte by byte (String.lowercased() is Unicode-aware and cost several
    /// hundred instructions for every header of every request), straight into the string (a name of up to
    /// 15 bytes then needs no allocation at all), on the contiguous bytes (iterating a String's UTF-8
    /// view cost 20 instructions a byte).
    private init(ascii bytes: UnsafeBufferPointer<UInt8>) {
        rawValue = String(decoding: bytes, as: UTF8.self)
        var key = Self.emptyKey
        canonical = String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for index in bytes.indices {
                let lowered = ASCII.lowercased(bytes[index])
                buffer[index] = lowered
                key = Self.key(key, lowered)
            }
            return bytes.count
        }
        self.key = key
    }

    private static let emptyKey: UInt64 = 0xcbf2_9ce4_8422_2325

    private static func key(_ key: UInt64, _ byte: UInt8) -> UInt64 { (key ^ UInt64(byte)) &* 0x100_0000_01b3 }

    private static func key(of bytes: some Sequence<UInt8>) -> UInt64 { bytes.reduce(emptyKey, key) }

    package static func == (lhs: HTTPHeaderName, rhs: HTTPHeaderName) -> Bool {
        lhs.key == rhs.key && lhs.canonical == rhs.canonical
    }
    package func hash(into hasher: inout Hasher) { hasher.combine(key) }
    package var description: String { rawValue }

    package static let allow = HTTPHeaderName(rawValue: "Allow")
    package static let authorization = HTTPHeaderName(rawValue: "Authorization")
    package static let connection = HTTPHeaderName(rawValue: "Connection")
    package static let contentLength = HTTPHeaderName(rawValue: "Content-Length")
    package static let contentType = HTTPHeaderName(rawValue: "Content-Type")
    package static let cookie = HTTPHeaderName(rawValue: "Cookie")
    package static let date = HTTPHeaderName(rawValue: "Date")
    package static let expect = HTTPHeaderName(rawValue: "Expect")
    package static let host = HTTPHeaderName(rawValue: "Host")
    package static let retryAfter = HTTPHeaderName(rawValue: "Retry-After")
    package static let server = HTTPHeaderName(rawValue: "Server")
    package static let transferEncoding = HTTPHeaderName(rawValue: "Transfer-Encoding")
    package static let userAgent = HTTPHeaderName(rawValue: "User-Agent")
}

/// An ordered list of header fields; lookups ignore case, order and repeats are kept as received.
package struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    package private(set) var fields: [(name: HTTPHeaderName, value: String)] = []

    package init() {}

    package init(dictionaryLiteral elements: (HTTPHeaderName, String)...) {
        for (name, value) in elements { append(name, value) }
    }

    /// The first value of `name`, or nil.
    package subscript(_ name: HTTPHeaderName) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order.
    package func values(_ name: HTTPHeaderName) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    package func contains(_ name: HTTPHeaderName) -> Bool {
        fields.contains { $0.name == name }
    }

    /// Adds a field after the existing ones.
    package mutating func append(_ name: HTTPHeaderName, _ value: String) {
        fields.append((name, value))
    }

    /// Replaces every field named `name` with one field.
    package mutating func set(_ name: HTTPHeaderName, _ value: String) {
        remove(name)
        append(name, value)
    }

    package mutating func remove(_ name: HTTPHeaderName) {
        fields.removeAll { $0.name == name }
    }

    /// Whether a comma-separated header (e.g. `Connection`) lists `token`, ignoring case.
    package func hasToken(_ token: String, in name: HTTPHeaderName) -> Bool {
        // Most messages have no such header (it is asked about three times per request): nothing to
        // lower or split then.
        guard contains(name) else { return false }
        let wanted = token.lowercased()
        return values(name).contains { value in
            value.split(separator: ",").contains { $0.trimmingASCIISpaces().lowercased() == wanted }
        }
    }

    package func makeIterator() -> IndexingIterator<[(name: HTTPHeaderName, value: String)]> {
        fields.makeIterator()
    }

    package static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

extension StringProtocol {
    /// The string without leading and trailing spaces and tabs (HTTP's OWS).
    package func trimmingASCIISpaces() -> String {
        // On the UTF-8 bytes: spaces and tabs are single bytes, so their indices are valid in `self`
        // (walking Characters cost a grapheme-break check per step).
        let bytes = utf8
        var start = bytes.startIndex
        while start < bytes.endIndex, bytes[start] == 32 || bytes[start] == 9 { start = bytes.index(after: start) }
        var end = start  // just after the last byte that is not a space or tab
        var index = start
        while index < bytes.endIndex {
            let byte = bytes[index]
            index = bytes.index(after: index)
            if byte != 32 && byte != 9 { end = index }
        }
        return String(self[start..<end])
    }
}

extension HTTPHeaderName {
    private static let perConnection: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "proxy-authorization", "proxy-authenticate", "content-length", "date", "server",
    ]

    /// Whether the field is about one connection or hop rather than the message (RFC 9110 §7.6.1), or one
    /// each side sets again for its own connection (`Content-Length`, `Date`, `Server`): what a proxy,
    /// a recording and a replay leave out.
    package var isPerConnection: Bool { Self.perConnection.contains(canonical) }
}
