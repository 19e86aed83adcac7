import CampaignMockSystem

/// Percent-decoding of URL components (RFC 3986 §2.1) and of query strings.
package enum PercentEncoding {
    /// Decodes `%XX` escapes; with `plusAsSpace`, `+` becomes a space (HTML form query style).
    /// Returns nil for a broken escape or bytes that are not UTF-8.
    package static func decode(_ text: some StringProtocol, plusAsSpace: Bool = false) -> String? {
        if let decoded = text.utf8.withContiguousStorageIfAvailable({ decode(bytes: $0, plusAsSpace: plusAsSpace) }) {
            return decoded
        }
        var contiguous = String(text)
        return contiguous.withUTF8 { decode(bytes: $0, plusAsSpace: plusAsSpace) }
    }

    /// Decodes `%XX` escapes in raw bytes (a form body's fields); nil for a broken escape or a result that
    /// is not UTF-8. On contiguous bytes and into room on the stack: a registration decodes two dozen
    /// fields and every tracking hit its query, and the same loops over an `ArraySlice` (bounds checks, a
    /// result array) cost about a thousand instructions per field.
    package static func decode(bytes: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool = false) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { buffer -> String? in
            var count = 0
            var index = 0
            var ascii = true
            while index < bytes.count {
                var byte = bytes[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, let high = ASCII.hexValue(bytes[index + 1]),
                        let low = ASCII.hexValue(bytes[index + 2])
                    else { return nil }
                    byte = high << 4 | low
                    index += 3
                } else {
                    if byte == UInt8(ascii: "+") && plusAsSpace { byte = 32 }
                    index += 1
                }
                ascii = ascii && byte < 0x80
                buffer[count] = byte
                count += 1
            }
            // ASCII, what forms and URLs mostly hold, skips the general validation.
            let decoded = UnsafeBufferPointer(rebasing: buffer[..<count])
            return ascii ? String(decoding: decoded, as: UTF8.self) : String(validating: decoded, as: UTF8.self)
        }
    }

    /// Encodes every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`) as `%XX` (upper-case hex).
    package static func encodeComponent(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            let unreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            if unreserved {
                result.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return result
    }

    /// Splits `a=1&b=2` into decoded pairs, in order; nil when an escape is broken. Works on the bytes
    /// (every tracking hit reads its `id` here; splitting by Character cost more than storing the hit).
    package static func queryItems(_ query: String?) -> [(name: String, value: String)]? {
        guard var query, !query.isEmpty else { return [] }
        return query.withUTF8 { bytes -> [(name: String, value: String)]? in
            var items: [(name: String, value: String)] = []
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: "&") { end += 1 }
                if end > start {
                    let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "="))
                    guard
                        let name = decode(
                            bytes: UnsafeBufferPointer(rebasing: bytes[start..<(equals ?? end)]), plusAsSpace: true),
                        let value = equals.map({
                            decode(bytes: UnsafeBufferPointer(rebasing: bytes[($0 + 1)..<end]), plusAsSpace: true)
                        })
                            ?? ""
                    else { return nil }
                    items.append((name, value))
                }
                start = end + 1
            }
            return items
        }
    }
}
