import CampaignMockModel
import CampaignMockStorage

/// What the SDKs send back for an `_mId` (docs/protocol.md §4.2), so a push's answer can show the exact
/// tracking URLs a device will call.
enum SDKTrackingEncoding {
    /// The hex (or UUID) the SDK of `platform` puts after `h`.
    static func encode(_ messageID: String, platform: Platform) -> String {
        if TrackingID.isUUID(messageID) { return messageID }
        guard let value = Int64(messageID) else { return messageID }
        switch platform {
        case .ios:
            // transformBroadLogId: %02x of the 32-bit value; 64-bit ids probably lose their high half.
            let hex = String(UInt32(truncatingIfNeeded: value), radix: 16)
            return hex.count < 2 ? "0" + hex : hex
        case .android:
            // TrackRequestManager (≥ 3.1.4): %x of the long, 32-bit for negative ints.
            if value < 0 && value >= Int64(Int32.min) { return String(UInt32(bitPattern: Int32(value)), radix: 16) }
            return String(UInt64(bitPattern: value), radix: 16)
        }
    }

    /// `/r/?id=h…,<deliveryId>,<tag>` as the SDK builds it.
    static func path(_ messageID: String, deliveryID: String, tag: Int, platform: Platform) -> String {
        "/r/?id=h\(encode(messageID, platform: platform)),\(deliveryID),\(tag)"
    }
}
