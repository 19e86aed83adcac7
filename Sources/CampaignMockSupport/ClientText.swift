/// What the server keeps of text a client chose, past the edge's bounds: a log field, a finding's subject,
/// a journal's index. Short text is kept whole (the usual case costs one count); longer text is cut at a
/// character boundary and says how long it was, or, where the text tells things apart, ends with a hash of
/// the whole so that two long texts with the same beginning stay two.
package enum ClientText {
    /// The most a log field keeps.
    package static let logBytes = 512
    /// The most a key or subject kept in memory keeps, besides its hash.
    package static let keyBytes = 256

    /// `text` when it has at most `bytes` bytes, else its beginning and `… (N bytes)`, `bytes` in all (so a
    /// text capped twice is cut once).
    package static func capped(_ text: String, bytes: Int = logBytes) -> String {
        guard text.utf8.count > bytes else { return text }
        let note = "… (\(text.utf8.count) bytes)"
        return prefix(text, max(0, bytes - note.utf8.count)) + note
    }

    /// `text` when it has at most ``keyBytes`` bytes, else its beginning and `…#` with a hash of the whole,
    /// ``keyBytes`` in all: a key of a key is the key, so whoever compares with one may key what it is given.
    package static func key(_ text: String) -> String {
        guard text.utf8.count > keyBytes else { return text }
        // FNV-1a, 64 bits: stable across runs (Hasher is not), for telling texts apart, not for secrets.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let suffix = "…#" + String(hash, radix: 16)
        return prefix(text, keyBytes - suffix.utf8.count) + suffix
    }

    /// The longest beginning of `text` of at most `bytes` bytes that does not cut a UTF-8 sequence.
    private static func prefix(_ text: String, _ bytes: Int) -> String {
        let utf8 = Array(text.utf8.prefix(bytes + 1))
        var end = bytes
        // Back to the first byte of a sequence (continuation bytes are 10xxxxxx).
        while end > 0 && utf8[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }
}
