/// A stored tracking hit, as the admin API shows it.
package struct TrackingEvent: Sendable, Codable, Equatable {
    /// The message and device a hit belongs to, when the mock issued its message id.
    package struct Link: Sendable, Codable, Equatable {
        /// `_mId` as issued.
        package var messageId: String
        package var deliveryId: String
        package var registrationToken: String?
        package var integrationKey: String?

        package init(
            messageId: String, deliveryId: String, registrationToken: String? = nil, integrationKey: String? = nil
        ) {
            self.messageId = messageId
            self.deliveryId = deliveryId
            self.registrationToken = registrationToken
            self.integrationKey = integrationKey
        }
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

    package init(
        id: Int64, receivedAt: String, tag: Int, type: String, rawId: String, messageHex: String? = nil,
        messageValue: String? = nil, messageUuid: String? = nil, deliveryId: String, userAgent: String? = nil,
        remoteAddress: String? = nil, linked: Link? = nil
    ) {
        self.id = id
        self.receivedAt = receivedAt
        self.tag = tag
        self.type = type
        self.rawId = rawId
        self.messageHex = messageHex
        self.messageValue = messageValue
        self.messageUuid = messageUuid
        self.deliveryId = deliveryId
        self.userAgent = userAgent
        self.remoteAddress = remoteAddress
        self.linked = linked
    }
}

/// A page of events, oldest first.
package struct EventPage: Sendable, Codable, Equatable {
    package var events: [TrackingEvent]
    /// Events matching the filter in all (not only on this page); left out where a reader did not ask.
    package var total: Int?
    /// Pass as `before` (newest-first pages) or `after` (oldest-first pages) for the next page.
    package var nextCursor: Int64?

    package init(
        events: [TrackingEvent], total: Int? = nil, nextCursor: Int64? = nil
    ) {
        self.events = events
        self.total = total
        self.nextCursor = nextCursor
    }
}
