/// Finds an object key given twice in a JSON text. Foundation's decoder keeps one of them silently, so a
/// body such as `{"status": 200, "status": 500}` would mean something other than what its author
/// may think; the admin API refuses it instead (RFC 8259 §4: names "SHOULD be unique").
enum JSONDuplicateKeys {
    /// The first key repeated within one object, with the path of that object (`faults.0`); nil when
    /// there is none. Expects well-formed JSON (run it after a decoder accepted the text).
    static func first(in bytes: [UInt8]) -> (key: String, path: String)? {
        /// An object being read: its keys so far and whether a key comes next; or an array and its index.
        enum Frame {
            case object(keys: Set<String>, expectingKey: Bool, name: String)
            case array(index: Int, name: String)
        }
        var stack: [Frame] = []
        var lastKey = ""
        var position = 0
        func path() -> String {
            stack.dropFirst().map { frame in
                switch frame {
                case .object(_, _, let name), .array(_, let name): return name
                }
            }.joined(separator: ".")
        }
        func childName() -> String {
            switch stack.last {
            case .array(let index, _): return String(index)
            default: return lastKey
            }
        }
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                let (text, end) = string(bytes, from: position)
                position = end
                if case .object(var keys, true, let name) = stack.last {
                    guard keys.insert(text).inserted else { return (text, path()) }
                    stack[stack.count - 1] = .object(keys: keys, expectingKey: false, name: name)
                    lastKey = text
                }
                continue
            case UInt8(ascii: "{"):
                stack.append(.object(keys: [], expectingKey: true, name: childName()))
            case UInt8(ascii: "["):
                stack.append(.array(index: 0, name: childName()))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = stack.popLast()
            case UInt8(ascii: ","):
                switch stack.last {
                case .object(let keys, _, let name):
                    stack[stack.count - 1] = .object(keys: keys, expectingKey: true, name: name)
                case .array(let index, let name): stack[stack.count - 1] = .array(index: index + 1, name: name)
                case nil: break
                }
            default:
                break
            }
            position += 1
        }
        return nil
    }

    /// The string starting at the quote at `start`, unescaped, and the position after its closing quote.
    private static func string(_ bytes: [UInt8], from start: Int) -> (String, Int) {
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        var position = start + 1
        func flush() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll()
        }
        func hex(at index: Int) -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            return UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        }
        while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
            guard bytes[position] == UInt8(ascii: "\\"), position + 1 < bytes.count else {
                raw.append(bytes[position])
                position += 1
                continue
            }
            flush()
            let escape = bytes[position + 1]
            position += 2
            switch escape {
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "b"): scalars.append("\u{8}")
            case UInt8(ascii: "f"): scalars.append("\u{C}")
            case UInt8(ascii: "u"):
                guard var value = hex(at: position) else { break }
                position += 4
                // A surrogate pair (RFC 8259 §7) is one scalar.
                if (0xD800..<0xDC00).contains(value), position + 1 < bytes.count,
                    bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u"),
                    let low = hex(at: position + 2), (0xDC00..<0xE000).contains(low)
                {
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                    position += 6
                }
                scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            default: scalars.append(Unicode.Scalar(escape))
            }
        }
        flush()
        return (String(scalars), position + 1)
    }
}
