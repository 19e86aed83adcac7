/// How the mock numbers the broadLog (`_mId`) of a push (docs/product.md §5.6, §10 U10).
public enum MessageIDStyle: String, Sendable, Codable, CaseIterable {
    /// Campaign v7: a positive decimal inside the signed 32-bit range (the default).
    case v7
    /// A negative v7 id, to exercise the SDKs' 32-bit two's complement encoding.
    case v7Negative = "v7-negative"
    /// A v7 id above 2^32 (newer builds); the iOS extension may send only its low 32 bits.
    case v7Large = "v7-64"
    /// Campaign v8: a UUID.
    case v8

    /// The `_mId` for the message numbered `sequence` (1, 2, …).
    public func messageID(sequence: Int64, uuid: () -> String) -> String {
        switch self {
        case .v7: return String(1_000_000 + sequence)
        case .v7Negative: return String(-(1_000_000 + sequence))
        case .v7Large: return String(50_000_000_000_000 + sequence)
        case .v8: return uuid().lowercased()
        }
    }
}
