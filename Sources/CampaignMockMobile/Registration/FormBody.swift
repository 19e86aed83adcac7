import CampaignMockHTTP

/// An `application/x-www-form-urlencoded` body as the Campaign SDKs send it: `k=v&k=v`, each key and
/// value percent-encoded over UTF-8 (docs/protocol.md §3.3). Keys are unique; order is kept.
package struct FormBody: Equatable {
    private(set) var fields: [(name: String, value: String)] = []

    /// Decodes `bytes`.
    ///
    /// - Throws: ``RegistrationError/malformed(_:)`` for text that is not UTF-8, a broken `%XX` escape,
    ///   a value that is not UTF-8 once decoded, an empty name, or a repeated name.
    package init(parsing bytes: [UInt8]) throws(RegistrationError) {
        try bytes.withUnsafeBufferPointer { bytes throws(RegistrationError) in try parse(bytes) }
    }

    /// On the contiguous bytes: a registration reads a dozen fields here, and the same walk over an
    /// array (bounds checks, generic searches) cost twice as much.
    private mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(RegistrationError) {
        // iOS sends non-ASCII letters raw (docs/protocol.md §3.3), so the raw body must be UTF-8 as well.
        guard bytes.allSatisfy({ $0 < 0x80 }) || String(validating: bytes, as: UTF8.self) != nil else {
            throw .malformed("the body is not UTF-8")
        }
        if bytes.isEmpty { return }
        // Walked on the bytes of `&` and `=` (ASCII, so never inside a multi-byte character), as HTML's
        // form decoding does; working on bytes rather than Characters keeps this cheap, and taking each
        // pair where it lies (rather than splitting into arrays of slices first) saves two arrays a pair.
        fields.reserveCapacity(16)
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "&") { end += 1 }
            let pair = UnsafeBufferPointer(rebasing: bytes[start..<end])
            start = end + 1
            if pair.isEmpty { throw .malformed("empty parameter between '&' separators") }
            let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.count
            let rawName = pair[..<equals]
            if rawName.isEmpty { throw .malformed("parameter without a name before '='") }
            guard let name = PercentEncoding.decode(bytes: UnsafeBufferPointer(rebasing: rawName), plusAsSpace: true)
            else {
                throw .malformed("malformed parameter name '\(String(decoding: rawName.prefix(40), as: UTF8.self))'")
            }
            let rawValue = UnsafeBufferPointer(rebasing: pair[min(equals + 1, pair.count)...])
            guard let value = PercentEncoding.decode(bytes: rawValue, plusAsSpace: true) else {
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

    package static func == (lhs: FormBody, rhs: FormBody) -> Bool {
        lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }
}
