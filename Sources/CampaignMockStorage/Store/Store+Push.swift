package import CampaignMockJournal
package import CampaignMockModel
import CampaignMockSupport
import CampaignMockSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds the payloads of one device's message (push's `PushComposer`): storage finds the
/// devices and issues the ids, the composer writes what the SDK reads.
package typealias PushMessageComposer =
    @Sendable (
        _ request: PushRequest, _ device: (token: String, platform: Platform, app: String), _ messageID: String,
        _ deliveryID: String
    ) throws(PushError) -> ComposedMessage

extension StoreTransaction {
    /// Finds the devices `request` targets, issues one message per device in one new delivery, stores
    /// the composed answer and returns it. `id` is the push's id when the caller chose one (a real-time
    /// event's); else the next free one.
    ///
    /// - Throws: ``PushError`` (no device matches, a payload is too large); nothing is stored then.
    package func createPush(
        _ request: PushRequest, style: MessageIDStyle, id: Int64? = nil, compose: PushMessageComposer
    ) throws -> ComposedPush {
        let devices: [SQLiteRow]
        if let token = request.token {
            devices = try connection.query(
                """
                SELECT d.id, d.registration_token, a.platform, a.integration_key, a.id AS application_id,
                    a.bundle_id, a.package_name
                FROM devices d JOIN applications a ON a.id = d.application_id
                WHERE \(DeviceLookup.byToken) AND (? IS NULL OR a.integration_key = ?)
                AND (? IS NULL OR a.platform = ?) ORDER BY d.id
                """, [token, request.app, request.app, request.platform?.rawValue, request.platform?.rawValue])
        } else {
            devices = try connection.query(
                """
                SELECT d.id, d.registration_token, a.platform, a.integration_key, a.id AS application_id,
                    a.bundle_id, a.package_name
                FROM devices d JOIN applications a ON a.id = d.application_id
                WHERE d.user_key = ? AND a.integration_key = ? AND (? IS NULL OR a.platform = ?) ORDER BY d.id
                """, [request.userKey, request.app, request.platform?.rawValue, request.platform?.rawValue])
        }
        guard !devices.isEmpty else {
            let application = request.app.map { " in \($0)" } ?? ""
            let target = request.token.map { "token '\($0)'" } ?? "userKey '\(request.userKey ?? "")'"
            let platform = request.platform.map { "\($0 == .ios ? "iOS" : "Android") " } ?? ""
            throw PushError("no registered \(platform)device with \(target)\(application)", isNotFound: true)
        }
        let now = Clock.wallClockMicroseconds()
        try connection.query("INSERT INTO pushes (id, created_at, delivery_id) VALUES (?, ?, '')", [id, now])
        let pushID = connection.lastInsertRowID
        let deliveryID = String(0x7A000 + pushID, radix: 16)
        try connection.query("UPDATE pushes SET delivery_id = ? WHERE id = ?", [deliveryID, pushID])
        var messages: [ComposedMessage] = []
        var warnings: [String] = []
        for device in devices {
            let messageID = try unusedMessageID(style)
            let platform = try device.value("platform", as: Platform.self)
            // What the push does not name, the device's application may.
            var request = request
            request.bundleId = try request.bundleId ?? device["bundle_id"].text
            request.androidPackage = try request.androidPackage ?? device["package_name"].text
            let message = try compose(
                request, (device.text("registration_token"), platform, device.text("integration_key")), messageID,
                deliveryID)
            let row = try insertMessage(
                messageID: messageID, deliveryID: deliveryID, deviceID: device["id"].integer,
                applicationID: device["application_id"].integer, createdAt: now)
            try connection.query("UPDATE messages SET push_id = ? WHERE id = ?", [pushID, row])
            if style == .v7Large && platform == .ios {
                warnings.append(
                    "_mId \(messageID) is above 2^32: the iOS extension may send only its low 32 bits "
                        + "(\(message.tracking.receive)); the mock links either form")
            }
            messages.append(message)
        }
        var push = ComposedPush(
            id: pushID, createdAt: RFC3339.string(microsecondsSince1970: now), deliveryId: deliveryID, idStyle: style,
            messages: messages, warnings: warnings)
        push.sends = []
        push.createdAtMicroseconds = now
        try connection.query("UPDATE pushes SET answer = ? WHERE id = ?", [JSONText.compact(push), pushID])
        record(.push(push))
        return push
    }
}

extension StoreTransaction {
    /// The next `_mId` of `style` that no stored message has, nor any a tracking hit could confuse it with
    /// (the same low 32 bits): ids restored from a snapshot may sit anywhere.
    fileprivate func unusedMessageID(_ style: MessageIDStyle) throws -> String {
        var sequence = try connection.scalar("SELECT coalesce(max(id), 0) + 1 FROM messages").integer ?? 1
        while true {
            let messageID = style.messageID(sequence: sequence) { RandomText.uuid() }
            let low32 = Int64(messageID).map { MessageIdentity.storedForms(of: $0).low32 }
            let taken = try connection.scalar(
                "SELECT count(*) FROM messages WHERE message_id = ? OR low32 = ?", [messageID, low32]
            ).integer
            if taken == 0 { return messageID }
            sequence += 1
        }
    }

    /// Drops pushes none of whose messages is left (after a reset or a snapshot import).
    func deleteOrphanedPushes() throws {
        try connection.query(
            "DELETE FROM pushes WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.push_id = pushes.id)")
    }
}

extension StoreTransaction {
    /// Stores a send of one of a push's messages, for `GET /_mock/push/{id}` and the event stream.
    /// Nothing is stored when its message is gone (a reset while the provider answered; a new push may
    /// have taken the old one's id since, but not its message id).
    package func recordSend(_ send: PushSend) throws {
        let stillThere = try connection.scalar(
            "SELECT 1 FROM messages WHERE push_id = ? AND message_id = ?", [send.pushId, send.messageId]
        ).integer
        guard stillThere != nil else { return }
        try connection.query(
            "INSERT INTO push_sends (push_id, answer) VALUES (?, ?)", [send.pushId, JSONText.compact(send)])
        record(.send(send))
    }
}

extension StoreReader {
    /// A push as it was answered, with its sends so far, or nil.
    package func push(id: Int64) throws -> ComposedPush? {
        guard let text = try connection.scalar("SELECT answer FROM pushes WHERE id = ?", [id]).text,
            var push = try? JSONDecoder().decode(ComposedPush.self, from: Data(text.utf8))
        else { return nil }
        let sends = try connection.query("SELECT answer FROM push_sends WHERE push_id = ? ORDER BY id", [id])
            .compactMap { row in
                try row["answer"].text.flatMap { try? JSONDecoder().decode(PushSend.self, from: Data($0.utf8)) }
            }
        push.sends = sends
        return push
    }

    /// How many receive and open hits the push's messages brought.
    private func hits(pushID: Int64) throws -> ComposedPush.Hits {
        let row = try connection.query(
            """
            SELECT coalesce(sum(e.tag = 1), 0) AS receive, coalesce(sum(e.tag = 2), 0) AS open
            FROM messages m JOIN tracking_events e ON e.message_ref = m.id WHERE m.push_id = ?
            """, [pushID]
        ).first
        return ComposedPush.Hits(
            receive: Int(try row?["receive"].integer ?? 0), open: Int(try row?["open"].integer ?? 0))
    }

    /// A page of the composed pushes, each with its sends and hits (``push(id:)``), and how many there are.
    package func pushes(_ paging: Paging, limit: Int) throws -> PushPage {
        let (condition, values, order) = paging.clause("id")
        let ids = try connection.query(
            "SELECT id FROM pushes WHERE answer <> '' AND \(condition) ORDER BY \(order) LIMIT ?",
            values + [limit + 1]
        ).map { try $0.integer("id") }
        let pushes = try ids.prefix(limit).compactMap { id -> ComposedPush? in
            var push = try push(id: id)
            push?.hits = try hits(pushID: id)
            return push
        }
        let total = try connection.integer("SELECT count(*) FROM pushes WHERE answer <> ''")
        return PushPage(pushes: pushes, total: Int(total), nextCursor: ids.count > limit ? ids[limit - 1] : nil)
    }

    /// The messages issued to a device with when they were sent, received and opened (first hit of each tag).
    func messageLifecycles(deviceID: Int64) throws -> [DeviceSubscription.MessageLifecycle] {
        try connection.query(
            """
            SELECT m.message_id, m.delivery_id, m.created_at, m.push_id,
                (SELECT min(e.received_at) FROM tracking_events e WHERE e.message_ref = m.id AND e.tag = 1) AS received,
                (SELECT min(e.received_at) FROM tracking_events e WHERE e.message_ref = m.id AND e.tag = 2) AS opened
            FROM messages m WHERE m.device_id = ? ORDER BY m.id
            """, [deviceID]
        ).map { row in
            DeviceSubscription.MessageLifecycle(
                messageId: try row.text("message_id"), deliveryId: try row.text("delivery_id"),
                pushId: try row["push_id"].integer,
                sentAt: try row.time("created_at"),
                receivedAt: try row["received"].integer.map { RFC3339.string(microsecondsSince1970: $0) },
                openedAt: try row["opened"].integer.map { RFC3339.string(microsecondsSince1970: $0) })
        }
    }
}

extension StoreReader {
    /// Pushes with id above `after`, oldest first, as they were answered.
    package func pushes(after: Int64, limit: Int) throws -> [ComposedPush] {
        try connection.query(
            "SELECT answer FROM pushes WHERE id > ? AND answer <> '' ORDER BY id LIMIT ?", [after, limit]
        )
        .compactMap { row in
            try row["answer"].text.flatMap { try? JSONDecoder().decode(ComposedPush.self, from: Data($0.utf8)) }
        }
    }
}
