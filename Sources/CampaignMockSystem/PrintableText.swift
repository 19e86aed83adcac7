/// Text from clients made safe to print on a terminal or in a line-based log: control characters are
/// shown as escapes (`\n`, `\u{1B}`) instead of being executed, so a request cannot forge a log line,
/// move the cursor, change the window title or ring the bell.
package enum PrintableText {
    /// `text` with every C0 and C1 control character and DEL escaped; the text itself when it has none.
    package static func escaped(_ text: String) -> String {
        // Most text has no control character: one pass over the bytes to find out.
        guard hasControlCharacter(text) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x09: result += "\\t"
            case 0..<0x20, 0x7F, 0x80..<0xA0:
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether `text` holds a C0 control (below U+0020), DEL (U+007F) or a C1 control (U+0080 to U+009F).
    package static func hasControlCharacter(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            // C0 and DEL are single bytes; C1 (U+0080–U+009F) is 0xC2 0x80–0x9F in UTF-8.
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(byte)) { return true }
            previous = byte
        }
        return false
    }
}
