package import CampaignMockModel

/// The `id` of a push tracking hit, `h<messageId>,<deliveryId>,<tag>` (docs/protocol.md §4.1).
package struct TrackingID: Sendable, Equatable {
    /// The broadLog id as the SDK encoded it.
    package enum MessageID: Sendable, Equatable {
        /// Hex as sent (lowercased, leading zeros kept) and its unsigned 64-bit value (docs/protocol.md §4.2).
        case numeric(hex: String, value: UInt64)
        /// A v8 UUID, lowercased.
        case uuid(String)
    }

    /// The `id` value as received.
    package let raw: String
    package let message: MessageID
    /// `_dId`, opaque, stored as sent (docs/protocol.md §4.3).
    package let deliveryID: String
    /// What the hit reports.
    package let tag: TrackingEvent.Kind
}
