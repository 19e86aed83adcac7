import CampaignMockModel
import CampaignMockSystem

extension TrackingID {
    /// Decodes an `id` value.
    ///
    /// - Throws: ``TrackingError`` naming the part that is wrong.
    ///
    /// Works on the UTF-8 bytes: every tracking hit is parsed here, and Character-by-Character checks
    /// cost more than storing the hit. The messages quote the text as sent.
    package init(parsing raw: String) throws(TrackingError) {
        // The string's own bytes, where they lie (an array of them was copied for every hit).
        var text = raw
        let parsed = text.withUTF8 { bytes in Result { () throws(TrackingError) in try Self(raw: raw, bytes: bytes) } }
        self = try parsed.get()
    }

    private init(raw: String, bytes: UnsafeBufferPointer<UInt8>) throws(TrackingError) {
        guard !bytes.isEmpty else { throw TrackingError("empty id") }
        guard bytes.count <= 512 else { throw TrackingError("id is longer than 512 bytes") }
        guard bytes[0] == UInt8(ascii: "h") else {
            throw TrackingError("id must start with 'h' (h<messageId>,<deliveryId>,<tag>)")
        }
        // The three fields are found by their two commas, where they lie: splitting made an array of
        // slices for every hit.
        let afterH = bytes[1...]
        guard let firstComma = afterH.firstIndex(of: UInt8(ascii: ",")),
            let secondComma = afterH[(firstComma + 1)...].firstIndex(of: UInt8(ascii: ",")),
            !afterH[(secondComma + 1)...].contains(UInt8(ascii: ","))
        else {
            let count = afterH.count { $0 == UInt8(ascii: ",") } + 1
            throw TrackingError(
                "id must have 3 comma-separated fields (h<messageId>,<deliveryId>,<tag>), got \(count)")
        }
        let delivery = afterH[(firstComma + 1)..<secondComma]
        let tagField = afterH[(secondComma + 1)...]
        let message = try Self.messageID(afterH[..<firstComma])
        guard !delivery.isEmpty else { throw TrackingError("empty delivery id") }
        guard tagField.count == 1, let tag = TrackingEvent.Kind(tag: Int(tagField[tagField.startIndex]) - 48) else {
            let text = String(decoding: tagField, as: UTF8.self)
            throw TrackingError("tag must be 1 (received) or 2 (opened), got '\(text.prefix(16))'")
        }
        self.init(raw: raw, message: message, deliveryID: String(decoding: delivery, as: UTF8.self), tag: tag)
    }

    /// docs/protocol.md §4.2: a UUID passes unchanged; any other id is hex of up to 64 bits.
    private static func messageID(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) throws(TrackingError) -> MessageID {
        guard !bytes.isEmpty else { throw TrackingError("empty message id") }
        // Lowered only when it has upper-case letters (a copy of the bytes).
        let hasUpper = bytes.contains { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        let lowercased =
            hasUpper
            ? String(decoding: bytes.map(ASCII.lowercased), as: UTF8.self) : String(decoding: bytes, as: UTF8.self)
        if isUUID(bytes) { return .uuid(lowercased) }
        guard bytes.allSatisfy({ ASCII.hexValue($0) != nil }) else {
            throw TrackingError(
                "message id '\(String(decoding: bytes, as: UTF8.self).prefix(40))' is neither hex nor a UUID")
        }
        let significant = bytes.drop { $0 == UInt8(ascii: "0") }
        guard significant.count <= 16 else {
            throw TrackingError(
                "message id '\(String(decoding: bytes, as: UTF8.self).prefix(40))' is larger than 64 bits")
        }
        let value = significant.reduce(UInt64(0)) { $0 << 4 | UInt64(ASCII.hexValue($1) ?? 0) }
        return .numeric(hex: lowercased, value: value)
    }

    /// 8-4-4-4-12 hex digits, any case.
    package static func isUUID(_ text: some StringProtocol) -> Bool {
        isUUID(Array(text.utf8))
    }

    private static func isUUID(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for (offset, byte) in bytes.enumerated() {
            let dash = offset == 8 || offset == 13 || offset == 18 || offset == 23
            guard dash ? byte == UInt8(ascii: "-") : ASCII.hexValue(byte) != nil else { return false }
        }
        return true
    }
}

/// Why a tracking id was refused (answered `400` with the message).
package struct TrackingError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
