/// Percent-decoding of URL components (RFC 3986 §2.1) and of query strings.
package enum PercentEncoding {
    /// Decodes `%XX` escapes; with `plusAsSpace`, `+` becomes a space (HTML form query style).
    /// Returns nil for a broken escape or bytes that are not UTF-8.
    package static func decode(_ text: some StringProtocol, plusAsSpace: Bool = false) -> String? {
        guard let bytes = decodeBytes(text, plusAsSpace: plusAsSpace) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Decodes `%XX` escapes in raw bytes (a form body); nil for a broken escape or a result that is not UTF-8.
    package static func decode(bytes: ArraySlice<UInt8>, plusAsSpace: Bool = false) -> String? {
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || ($0 == UInt8(ascii: "+") && plusAsSpace) }) {
            return text(bytes)
        }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, let high = ASCII.hexValue(bytes[index + 1]),
                    let low = ASCII.hexValue(bytes[index + 2])
                else { return nil }
                result.append(high << 4 | low)
                index += 3
                continue
            }
            result.append(byte == UInt8(ascii: "+") && plusAsSpace ? 32 : byte)
            index += 1
        }
        return text(result[...])
    }

    /// `bytes` as text when they are UTF-8, else nil. ASCII, what forms and URLs mostly hold, skips the
    /// general validation (a registration decodes two dozen fields here).
    private static func text(_ bytes: ArraySlice<UInt8>) -> String? {
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
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

    /// Decodes `%XX` escapes into raw bytes; nil for a broken escape.
    package static func decodeBytes(_ text: some StringProtocol, plusAsSpace: Bool = false) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(ASCII.hexValue),
                    let low = iterator.next().flatMap(ASCII.hexValue)
                else {
                    return nil
                }
                result.append(high << 4 | low)
            case UInt8(ascii: "+") where plusAsSpace:
                result.append(32)
            default:
                result.append(byte)
            }
        }
        return result
    }

    /// Splits `a=1&b=2` into decoded pairs, in order; nil when an escape is broken. Works on the bytes
    /// (every tracking hit reads its `id` here; splitting by Character cost more than storing the hit).
    package static func queryItems(_ query: String?) -> [(name: String, value: String)]? {
        guard let query, !query.isEmpty else { return [] }
        var items: [(String, String)] = []
        let bytes = Array(query.utf8)
        for part in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = part.firstIndex(of: UInt8(ascii: "="))
            guard let name = decode(bytes: part[..<(equals ?? part.endIndex)], plusAsSpace: true),
                let value = equals.map({ decode(bytes: part[($0 + 1)...], plusAsSpace: true) }) ?? ""
            else { return nil }
            items.append((name, value))
        }
        return items
    }
}
