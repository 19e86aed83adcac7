import CampaignMockCore

/// An `application/x-www-form-urlencoded` body as the Campaign SDKs send it: `k=v&k=v`, each key and
/// value percent-encoded over UTF-8 (docs/protocol.md §3.3). Keys are unique; order is kept.
struct FormBody: Equatable {
    private(set) var fields: [(name: String, value: String)] = []

    /// Decodes `bytes`.
    ///
    /// - Throws: ``RegistrationError/malformed(_:)`` for text that is not UTF-8, a broken `%XX` escape,
    ///   a value that is not UTF-8 once decoded, an empty name, or a repeated name.
    init(parsing bytes: [UInt8]) throws(RegistrationError) {
        // iOS sends non-ASCII letters raw (docs/protocol.md §3.3), so the raw body must be UTF-8 as well.
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw .malformed("the body is not UTF-8")
        }
        if bytes.isEmpty { return }
        // Split on the bytes of `&` and `=` (ASCII, so never inside a multi-byte character), as HTML's
        // form decoding does; working on bytes rather than Characters keeps this cheap.
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            if pair.isEmpty { throw .malformed("empty parameter between '&' separators") }
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            if parts[0].isEmpty { throw .malformed("parameter without a name before '='") }
            guard let name = PercentEncoding.decode(bytes: parts[0], plusAsSpace: true) else {
                throw .malformed("malformed parameter name '\(String(decoding: parts[0].prefix(40), as: UTF8.self))'")
            }
            guard let value = PercentEncoding.decode(bytes: parts.count > 1 ? parts[1] : [], plusAsSpace: true) else {
                throw .malformed("malformed percent-encoding in parameter '\(name)'")
            }
            if index(of: name) != nil {
                throw .malformed("parameter '\(name)' appears more than once")
            }
            fields.append((name, value))
        }
    }

    /// The value of `name`, or nil when absent.
    subscript(_ name: String) -> String? {
        index(of: name).map { fields[$0].value }
    }

    /// Where `name` is among the fields. Lengths are compared first: they differ more often than not,
    /// and a registration looks up a dozen names among a dozen fields (the string comparisons were 3 %
    /// of its instructions).
    private func index(of name: String) -> Int? {
        let length = name.utf8.count
        return fields.firstIndex { $0.name.utf8.count == length && $0.name == name }
    }

    static func == (lhs: FormBody, rhs: FormBody) -> Bool {
        lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }
}
