extension TrackingID {
    /// Decodes an `id` value.
    ///
    /// - Throws: ``TrackingError`` naming the part that is wrong.
    package init(parsing raw: String) throws(TrackingError) {
        guard !raw.isEmpty else { throw TrackingError("empty id") }
        guard raw.utf8.count <= 512 else { throw TrackingError("id is longer than 512 bytes") }
        guard raw.hasPrefix("h") else {
            throw TrackingError("id must start with 'h' (h<messageId>,<deliveryId>,<tag>)")
        }
        let fields = raw.dropFirst().split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 3 else {
            throw TrackingError(
                "id must have 3 comma-separated fields (h<messageId>,<deliveryId>,<tag>), got \(fields.count)")
        }
        let message = try Self.messageID(fields[0])
        guard !fields[1].isEmpty else { throw TrackingError("empty delivery id") }
        guard let number = Int(fields[2]), let tag = Tag(rawValue: number), fields[2].count == 1 else {
            throw TrackingError("tag must be 1 (received) or 2 (opened), got '\(fields[2].prefix(16))'")
        }
        self.init(raw: raw, message: message, deliveryID: String(fields[1]), tag: tag)
    }

    /// docs/protocol.md §4.2: a UUID passes unchanged; any other id is hex of up to 64 bits.
    private static func messageID(_ text: Substring) throws(TrackingError) -> MessageID {
        guard !text.isEmpty else { throw TrackingError("empty message id") }
        if isUUID(text) { return .uuid(text.lowercased()) }
        guard text.allSatisfy(\.isHexDigit), text.allSatisfy(\.isASCII) else {
            throw TrackingError("message id '\(text.prefix(40))' is neither hex nor a UUID")
        }
        let significant = text.drop { $0 == "0" }
        guard significant.count <= 16, let value = UInt64(significant.isEmpty ? "0" : significant, radix: 16) else {
            throw TrackingError("message id '\(text.prefix(40))' is larger than 64 bits")
        }
        return .numeric(hex: text.lowercased(), value: value)
    }

    /// 8-4-4-4-12 hex digits, any case.
    static func isUUID(_ text: some StringProtocol) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12]
            && groups.allSatisfy { $0.allSatisfy { $0.isASCII && $0.isHexDigit } }
    }
}

/// Why a tracking id was refused (answered `400` with the message).
package struct TrackingError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
