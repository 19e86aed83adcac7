/// Writes JSON strings straight into bytes, for the rows written on every request (a registration's
/// fields and params, a journal entry's headers), where Foundation's encoder cost more than SQLite.
/// Quotes, backslashes and control characters are escaped as JSONEncoder escapes them; `/` and
/// non-ASCII text are written as they are.
package enum JSONStringWriter {
    package static func append(_ value: String, to bytes: inout [UInt8]) {
        var value = value
        value.withUTF8 { append(utf8: $0, to: &bytes) }
    }

    /// Appends text given as valid UTF-8 bytes.
    static func append(utf8 text: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Runs of bytes that need no escape are copied whole.
        var start = 0
        for index in 0..<text.count {
            let byte = text[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes += UnsafeBufferPointer(rebasing: text[start..<index])
            escape(byte, to: &bytes)
            start = index + 1
        }
        bytes += UnsafeBufferPointer(rebasing: text[start...])
        bytes.append(UInt8(ascii: "\""))
    }

    private static func escape(_ byte: UInt8, to bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): bytes += [92, 34]
        case UInt8(ascii: "\\"): bytes += [92, 92]
        case 10: bytes += [92, UInt8(ascii: "n")]
        case 13: bytes += [92, UInt8(ascii: "r")]
        case 9: bytes += [92, UInt8(ascii: "t")]
        case 8: bytes += [92, UInt8(ascii: "b")]
        case 12: bytes += [92, UInt8(ascii: "f")]
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes += [92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
        }
    }
}
