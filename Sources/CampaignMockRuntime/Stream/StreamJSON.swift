import CampaignMockJournal
import CampaignMockModel
import CampaignMockStorage
import CampaignMockSupport
import CampaignMockSystem

extension JournalRecord {
    /// The summary of entry `id` that the event stream sends (`/_mock/requests/{id}` has the rest): what a
    /// list shows, without headers and bodies, so that an open console costs a request little. Written
    /// directly (one per request), with the values `JournalEntry(id:record:)` has for the same keys.
    func summaryJSON(id: Int64) -> [UInt8] {
        var object = JSONObjectWriter(capacity: 256)
        object.string("appKey", appKey)
        object.milliseconds("durationMs", micros: durationMicros)
        object.string("endpoint", endpoint)
        object.integer("id", id)
        object.string("method", method)
        object.string("reason", reason)
        object.string("receivedAt", RFC3339.string(microsecondsSince1970: receivedAtMicros))
        object.integer("status", status)
        object.string("target", target)
        return object.finish()
    }
}

extension TrackingEvent {
    /// The event as JSON, the same text `JSONText.compact` writes (the event stream sends one per hit).
    var json: [UInt8] {
        var object = JSONObjectWriter()
        object.string("deliveryId", deliveryId)
        object.integer("id", id)
        object.json("linked", linked?.json)
        object.string("messageHex", messageHex)
        object.string("messageUuid", messageUuid)
        object.string("messageValue", messageValue)
        object.string("rawId", rawId)
        object.string("receivedAt", receivedAt)
        object.string("remoteAddress", remoteAddress)
        object.integer("tag", tag)
        object.string("type", type)
        object.string("userAgent", userAgent)
        return object.finish()
    }
}

extension TrackingEvent.Link {
    var json: [UInt8] {
        var object = JSONObjectWriter(capacity: 128)
        object.string("deliveryId", deliveryId)
        object.string("integrationKey", integrationKey)
        object.string("messageId", messageId)
        object.string("registrationToken", registrationToken)
        return object.finish()
    }
}
