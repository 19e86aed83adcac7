package import CampaignMockJournal
package import CampaignMockModel
import CampaignMockSystem

/// An issued message a tracking hit belongs to.
package struct IssuedMessage: Sendable, Equatable {
    package let id: Int64
    package let messageID: String
    package let deliveryID: String
    package let deviceID: Int64?
    package let applicationID: Int64?
    /// The device and application it was issued for, as a hit linked to it shows them.
    package let registrationToken: String?
    package let integrationKey: String?

    /// What a hit linked to this message shows of it.
    package var link: TrackingEvent.Link {
        TrackingEvent.Link(
            messageId: messageID, deliveryId: deliveryID, registrationToken: registrationToken,
            integrationKey: integrationKey)
    }
}

extension StoreReader {
    /// The issued message `id` refers to (docs/product.md §10, U11), or nil. An exact 64-bit match wins over
    /// a 32-bit or truncated one; among equals, the newest message.
    package func issuedMessage(for id: TrackingID) throws -> IssuedMessage? {
        let rows: [SQLiteRow]
        switch id.message {
        case .uuid(let uuid):
            rows = try connection.query(
                Self.issuedMessageColumns + " WHERE m.uuid = ? ORDER BY m.id DESC LIMIT 1",
                [uuid])
        case .numeric(_, let value):
            let candidates = MessageIdentity.candidateValues(forHex: value)
            let low32: Int64? = MessageIdentity.mayBeTruncated(value) ? Int64(value) : nil
            rows = try connection.query(
                Self.issuedMessageColumns + """
                     WHERE m.numeric_value = ? OR m.numeric_value = ? OR m.low32 = ?
                    ORDER BY m.numeric_value = ? DESC, m.numeric_value = ? DESC, m.id DESC LIMIT 1
                    """,
                [
                    candidates[0], candidates.count > 1 ? candidates[1] : nil, low32, candidates[0],
                    candidates.count > 1 ? candidates[1] : nil,
                ])
        }
        return try rows.first.map { row in
            IssuedMessage(
                id: try row.integer("id"), messageID: try row.text("message_id"),
                deliveryID: try row.text("delivery_id"), deviceID: try row["device_id"].integer,
                applicationID: try row["application_id"].integer,
                registrationToken: try row["registration_token"].text,
                integrationKey: try row["integration_key"].text)
        }
    }

    private static let issuedMessageColumns = """
        SELECT m.id, m.message_id, m.delivery_id, m.device_id, m.application_id, d.registration_token,
            a.integration_key
        FROM messages m LEFT JOIN devices d ON d.id = m.device_id LEFT JOIN applications a ON a.id = m.application_id
        """

    /// A page of the events matching `filter` (with id at most `upTo`), at most `limit`, with how many
    /// match in all when `counting`.
    package func events(
        matching filter: EventFilter, _ paging: Paging, limit: Int, upTo: Int64? = nil, counting: Bool = true
    ) throws -> EventPage {
        if filter.matchesNothing { return EventPage(events: [], total: counting ? 0 : nil, nextCursor: nil) }
        let (condition, values) = Self.eventCondition(filter, upTo: upTo)
        let (pageCondition, pageValues, order) = paging.clause("e.id")
        let rows = try connection.query(
            """
            SELECT e.id, e.received_at, e.raw_id, e.message_hex, e.message_value, e.message_uuid, e.delivery_id, e.tag,
                e.user_agent, e.remote_address, m.message_id AS linked_message, m.delivery_id AS linked_delivery,
                d.registration_token, a.integration_key
            FROM tracking_events e
            LEFT JOIN messages m ON m.id = e.message_ref
            LEFT JOIN devices d ON d.id = e.device_id
            LEFT JOIN applications a ON a.id = e.application_id
            WHERE \(condition) AND \(pageCondition) ORDER BY \(order) LIMIT ?
            """, values + pageValues + [limit + 1])
        let events = try rows.prefix(limit).map(Self.event)
        let total =
            try counting
            ? Int(
                connection.integer(
                    "SELECT count(*) FROM tracking_events e WHERE \(condition)",
                    values)) : nil
        return EventPage(events: events, total: total, nextCursor: rows.count > limit ? events.last?.id : nil)
    }

    /// Events matching `filter` with id above `after`, oldest first.
    package func events(matching filter: EventFilter, after: Int64, limit: Int, upTo: Int64? = nil) throws -> EventPage
    {
        try events(matching: filter, .oldestFirst(after: after), limit: limit, upTo: upTo, counting: false)
    }

    /// The WHERE clause of `filter` for events `e`, and its values (all bound). Only
    /// the filters given become clauses, so that each can use its index.
    private static func eventCondition(_ filter: EventFilter, upTo: Int64?) -> (String, [any SQLiteBindable]) {
        var clauses = ["1"]
        var values: [any SQLiteBindable] = []
        func add(_ clause: String, _ bound: [any SQLiteBindable]) {
            clauses.append(clause)
            values += bound
        }
        if let tag = filter.tag { add("e.tag = ?", [tag.tag]) }
        if let deliveryID = filter.deliveryID { add("e.delivery_id = ?", [deliveryID]) }
        if let token = filter.registrationToken {
            // Through the index of events by device, not a scan of every event.
            add("e.device_id IN (SELECT d.id FROM devices d WHERE \(DeviceLookup.byToken))", [token])
        }
        if let since = filter.since { add("e.received_at >= ?", [since]) }
        if let afterID = filter.afterID { add("e.id > ?", [afterID]) }
        if let uuid = filter.messageUUID { add("e.message_uuid = ?", [uuid]) }
        if let upTo { add("e.id <= ?", [upTo]) }
        if let candidates = filter.messageValues {
            // A fixed number of bound slots; the values never become SQL.
            add("e.message_value IN (?, ?, ?)", (0..<3).map { $0 < candidates.count ? candidates[$0] : nil })
        }
        return (clauses.joined(separator: " AND "), values)
    }

    /// The newest event id (0 when none).
    package func lastEventID() throws -> Int64 {
        try connection.integer("SELECT coalesce(max(id), 0) FROM tracking_events")
    }

    /// How many events there are.
    package func eventCount() throws -> Int64 {
        try connection.integer("SELECT count(*) FROM tracking_events")
    }

    private static func event(_ row: SQLiteRow) throws -> TrackingEvent {
        let tag = Int(try row.integer("tag"))
        let value = try row["message_value"].integer.map { String(UInt64(bitPattern: $0)) }
        let link = try row["linked_message"].text.map { messageID in
            TrackingEvent.Link(
                messageId: messageID, deliveryId: try row.text("linked_delivery"),
                registrationToken: try row["registration_token"].text, integrationKey: try row["integration_key"].text)
        }
        return TrackingEvent(
            id: try row.integer("id"),
            receivedAt: try row.time("received_at"),
            tag: tag,
            type: TrackingEvent.Kind(tag: tag)?.rawValue ?? "unknown",
            rawId: try row.text("raw_id"),
            messageHex: try row["message_hex"].text,
            messageValue: value,
            messageUuid: try row["message_uuid"].text,
            deliveryId: try row.text("delivery_id"),
            userAgent: try row["user_agent"].text,
            remoteAddress: try row["remote_address"].text,
            linked: link)
    }
}

extension StoreTransaction {
    /// Stores a tracking hit, linked to the issued message, device and application when known.
    /// `lookedUp`: the issued message a read already found for `id` (nil inside: none), so the hit is
    /// looked up once; nil when nothing looked.
    package func recordHit(
        _ id: TrackingID, userAgent: String?, remoteAddress: String?, receivedAt: Int64,
        lookedUp: IssuedMessage?? = nil
    ) throws {
        let message: IssuedMessage?
        if let lookedUp {
            message = try stillAsLookedUp(lookedUp) ? lookedUp : reader.issuedMessage(for: id)
        } else {
            if connection.mayHaveMessages == nil {
                connection.mayHaveMessages =
                    try connection.scalar("SELECT EXISTS (SELECT 1 FROM messages)").integer == 1
            }
            // While no message was ever issued, no hit can be linked: skip the lookup (a sixth of a hit's work).
            message = connection.mayHaveMessages == true ? try reader.issuedMessage(for: id) : nil
        }
        try insertTrackingHit(
            id, userAgent: userAgent, remoteAddress: remoteAddress, receivedAt: receivedAt, messageRef: message?.id,
            deviceID: message?.deviceID, applicationID: message?.applicationID, link: message?.link)
    }

    /// Whether the message a read found before this transaction is still issued to the same device and
    /// application: a removal (a device, an application, a sweep, a reset) between the two unlinks or deletes
    /// it, and a hit written with the read's ids would then break a foreign key. A lookup by the message's
    /// row id, not the hit's id again.
    private func stillAsLookedUp(_ lookedUp: IssuedMessage?) throws -> Bool {
        guard let lookedUp else { return true }
        guard
            let row = try connection.query(
                "SELECT device_id, application_id FROM messages WHERE id = ?", [lookedUp.id]
            ).first
        else { return false }
        return try row["device_id"].integer == lookedUp.deviceID
            && row["application_id"].integer == lookedUp.applicationID
    }

    /// Stores a hit with the given link (snapshot import keeps the links it had). `link` is what the event
    /// stream shows of the linked message (an import, which the stream does not see, leaves it out).
    package func insertTrackingHit(
        _ id: TrackingID, userAgent: String?, remoteAddress: String?, receivedAt: Int64, messageRef: Int64?,
        deviceID: Int64?, applicationID: Int64?, link: TrackingEvent.Link? = nil
    ) throws {
        let (hex, value, uuid) = id.storedMessage
        try connection.query(
            """
            INSERT INTO tracking_events (received_at, raw_id, message_hex, message_value, message_uuid, delivery_id,
                tag, user_agent, remote_address, message_ref, device_id, application_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        ) {
            $0.integer(receivedAt)
            $0.text(id.raw)
            $0.text(hex)
            $0.integer(value)
            $0.text(uuid)
            $0.text(id.deliveryID)
            $0.integer(Int64(id.tag.tag))
            $0.text(userAgent)
            $0.text(remoteAddress)
            $0.integer(messageRef)
            $0.integer(deviceID)
            $0.integer(applicationID)
        }
        let rowID = connection.lastInsertRowID
        record(
            .hit(
                id: rowID,
                HitRecord(
                    trackingID: id, userAgent: userAgent, remoteAddress: remoteAddress, receivedAt: receivedAt,
                    link: link)))
    }

    /// Records a message the mock issued (`_mId` decimal or UUID, `_dId`), so later hits link to it.
    ///
    /// - Returns: the message's row id.
    @discardableResult
    package func insertMessage(
        messageID: String, deliveryID: String, deviceID: Int64?, applicationID: Int64?,
        createdAt: Int64 = Clock.wallClockMicroseconds()
    ) throws -> Int64 {
        var numeric: Int64?
        var low32: Int64?
        var uuid: String?
        if TrackingID.isUUID(messageID) {
            uuid = messageID.lowercased()
        } else if let decimal = Int64(messageID) {
            (numeric, low32) = MessageIdentity.storedForms(of: decimal)
        } else {
            throw StoreConflict("message id '\(messageID)' is neither a decimal nor a UUID")
        }
        connection.mayHaveMessages = true
        try connection.query(
            """
            INSERT INTO messages (message_id, numeric_value, low32, uuid, delivery_id, device_id, application_id,
                created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [messageID, numeric, low32, uuid, deliveryID, deviceID, applicationID, createdAt])
        return connection.lastInsertRowID
    }
}

extension TrackingID {
    /// The message part as stored: the hex as sent and its value for numeric ids, the UUID for v8 ids.
    var storedMessage: (hex: String?, value: Int64?, uuid: String?) {
        switch message {
        case .numeric(let text, let number): (text, Int64(bitPattern: number), nil)
        case .uuid(let text): (nil, nil, text)
        }
    }
}

extension TrackingEvent {
    /// A hit from what was written (the stream publishes it without a read).
    package init(id: Int64, hit: HitRecord) {
        let message = hit.trackingID.storedMessage
        self.init(
            id: id,
            receivedAt: RFC3339.string(microsecondsSince1970: hit.receivedAt),
            tag: hit.trackingID.tag.tag,
            type: hit.trackingID.tag.rawValue,
            rawId: hit.trackingID.raw,
            messageHex: message.hex,
            messageValue: message.value.map { String(UInt64(bitPattern: $0)) },
            messageUuid: message.uuid,
            deliveryId: hit.trackingID.deliveryID,
            userAgent: hit.userAgent,
            remoteAddress: hit.remoteAddress,
            linked: hit.link)
    }
}
