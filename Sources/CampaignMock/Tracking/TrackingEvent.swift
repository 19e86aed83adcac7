/// A stored tracking hit, as the admin API shows it.
package struct TrackingEvent: Sendable, Codable, Equatable {
    /// The message and device a hit belongs to, when the mock issued its message id.
    package struct Link: Sendable, Codable, Equatable {
        /// `_mId` as issued.
        package var messageId: String
        package var deliveryId: String
        package var registrationToken: String?
        package var integrationKey: String?
    }

    package var id: Int64
    package var receivedAt: String
    package var tag: Int
    /// `receive` or `open`.
    package var type: String
    /// The `id` parameter as received.
    package var rawId: String
    /// For numeric ids: the hex as sent and its unsigned value in decimal.
    package var messageHex: String?
    package var messageValue: String?
    /// For v8 ids.
    package var messageUuid: String?
    package var deliveryId: String
    package var userAgent: String?
    package var remoteAddress: String?
    package var linked: Link?
}

/// Which events a listing returns.
package struct EventFilter: Sendable, Equatable {
    package var tag: TrackingID.Tag?
    /// Stored hex values to match (from a hex, a decimal `_mId`, or a value).
    package var messageValues: [Int64]?
    package var messageUUID: String?
    package var deliveryID: String?
    package var registrationToken: String?
    /// Microseconds since 1970; events at or after it.
    package var since: Int64?
    /// Set when the filters contradict each other.
    package var matchesNothing = false

    package init() {}
}

/// A page of events, oldest first.
package struct EventPage: Sendable, Codable, Equatable {
    package var events: [TrackingEvent]
    /// Events matching the filter in all (not only on this page); left out where a reader did not ask.
    package var total: Int?
    /// Pass as `before` (newest-first pages) or `after` (oldest-first pages) for the next page.
    package var nextCursor: Int64?
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
