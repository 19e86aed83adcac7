package import CampaignMockHTTP

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Header lists stored as JSON text: `[["Host","a"],["Accept","*/*"]]`.
package enum JSONArrays {
    static func encodePairs(_ pairs: some Sequence<(String, String)>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + 64 * pairs.underestimatedCount)
        bytes.append(UInt8(ascii: "["))
        for (index, (name, value)) in pairs.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "["))
            JSONStringWriter.append(name, to: &bytes)
            bytes.append(UInt8(ascii: ","))
            JSONStringWriter.append(value, to: &bytes)
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A request's header fields as `encodePairs` writes them (the journal stores one list per request):
    /// written straight from the fields, without a list of arrays in between.
    package static func encode(_ headers: HTTPHeaders) -> String {
        // Most answers (every tracking hit's) set no header: no buffer to build.
        if headers.fields.isEmpty { return "[]" }
        return encodePairs(headers.fields.lazy.map { ($0.name.rawValue, $0.value) })
    }

    /// The lists `encodePairs` wrote, read directly (every journal entry read, and the event stream reads
    /// one per request); any other JSON text goes through JSONDecoder.
    package static func decodePairs(_ text: String) -> [[String]] {
        if let pairs = decodeWritten(Array(text.utf8)) { return pairs }
        return (try? JSONDecoder().decode([[String]].self, from: Data(text.utf8))) ?? []
    }

    /// Reads exactly the shape `encodePairs` writes: no whitespace, and only the escapes
    /// `JSONStringWriter` writes. Nil for anything else.
    private static func decodeWritten(_ bytes: [UInt8]) -> [[String]]? {
        var index = 0
        func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var text: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(validating: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                    case UInt8(ascii: "n"): text.append(10)
                    case UInt8(ascii: "r"): text.append(13)
                    case UInt8(ascii: "t"): text.append(9)
                    case UInt8(ascii: "b"): text.append(8)
                    case UInt8(ascii: "f"): text.append(12)
                    case UInt8(ascii: "u"):
                        // Only control characters are written as \u00XX.
                        guard index + 4 <= bytes.count,
                            let value = UInt8(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
                            value < 0x20
                        else { return nil }
                        text.append(value)
                        index += 4
                    default: return nil
                    }
                default: text.append(byte)
                }
            }
            return nil
        }
        guard take(UInt8(ascii: "[")) else { return nil }
        var pairs: [[String]] = []
        if take(UInt8(ascii: "]")) { return index == bytes.count ? pairs : nil }
        repeat {
            guard take(UInt8(ascii: "[")) else { return nil }
            var pair: [String] = []
            if !take(UInt8(ascii: "]")) {
                repeat {
                    guard let element = string() else { return nil }
                    pair.append(element)
                } while take(UInt8(ascii: ","))
                guard take(UInt8(ascii: "]")) else { return nil }
            }
            pairs.append(pair)
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")), index == bytes.count else { return nil }
        return pairs
    }
}
