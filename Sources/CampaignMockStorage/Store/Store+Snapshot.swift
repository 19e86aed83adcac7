package import CampaignMockModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension StoreReader {
    /// Writes the stored state as the snapshot document (``Snapshot``'s JSON, keys sorted, `faults` as
    /// given) to `write`, a piece of about 256 KiB at a time. The rows are read a page at a time inside one
    /// read transaction: the document is consistent, and the memory it takes does not grow with the store.
    /// Stops early, without an error, when `write` returns false (the reader went away).
    package func writeSnapshot(faults: [FaultRule], to write: ([UInt8]) -> Bool) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var buffer: [UInt8] = []
        buffer.reserveCapacity(Self.snapshotPiece + 65536)
        var going = true
        func emit(_ text: String) {
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= Self.snapshotPiece { flush() }
        }
        func flush() {
            guard going, !buffer.isEmpty else { return }
            going = write(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
        /// Writes the rows `page` returns after the last id, page by page, as a JSON array.
        func array<Row: Encodable>(_ page: (Int64) throws -> [(id: Int64, row: Row)]) throws {
            emit("[")
            var after: Int64 = 0
            var first = true
            while going {
                let rows = try page(after)
                for (id, row) in rows {
                    if !first { buffer.append(UInt8(ascii: ",")) }
                    first = false
                    buffer.append(contentsOf: try encoder.encode(row))
                    after = id
                }
                if buffer.count >= Self.snapshotPiece { flush() }
                if rows.count < Self.snapshotPage { break }
            }
            emit("]")
        }

        // The document reads the whole file once. Through the readers' memory map every page it reads would
        // stay resident for the process, up to the map's size (the export's peak grew with the store);
        // through SQLite's page cache it takes that cache's 2 MiB.
        let mapped = try connection.scalar("PRAGMA mmap_size").integer ?? 0
        try connection.execute("PRAGMA mmap_size=0")
        defer { try? connection.execute("PRAGMA mmap_size=\(mapped)") }
        // A savepoint is a read transaction here, and nests in the writer's when the store is in memory.
        try connection.execute("SAVEPOINT snapshot")
        defer { try? connection.execute("RELEASE snapshot") }
        emit(#"{"applications":"#)
        try array { after in
            try connection.query(
                "SELECT \(Self.applicationColumns) FROM applications WHERE id > ? ORDER BY id LIMIT ?",
                [after, Int64(Self.snapshotPage)]
            ).map { (try $0.integer("id"), try Self.application($0).application) }
        }
        emit(#","devices":"#)
        try array { after in try devicePage(after: after) }
        emit(#","events":"#)
        try array { after in
            try connection.query(
                """
                SELECT e.id, e.received_at, e.raw_id, e.user_agent, e.remote_address, m.message_id FROM tracking_events e
                LEFT JOIN messages m ON m.id = e.message_ref WHERE e.id > ? ORDER BY e.id LIMIT ?
                """, [after, Int64(Self.snapshotPage)]
            ).map { row in
                (
                    try row.integer("id"),
                    Snapshot.TrackingHit(
                        receivedAt: try row.time("received_at"), rawId: try row.text("raw_id"),
                        userAgent: try row["user_agent"].text, remoteAddress: try row["remote_address"].text,
                        messageId: try row["message_id"].text)
                )
            }
        }
        emit(#","faults":"#)
        emit(String(decoding: try encoder.encode(faults), as: UTF8.self))
        emit(#","format":"\#(Snapshot.format)","messages":"#)
        try array { after in
            try connection.query(
                """
                SELECT m.id, m.message_id, m.delivery_id, m.created_at, a.integration_key, d.registration_token
                FROM messages m LEFT JOIN applications a ON a.id = m.application_id
                LEFT JOIN devices d ON d.id = m.device_id WHERE m.id > ? ORDER BY m.id LIMIT ?
                """, [after, Int64(Self.snapshotPage)]
            ).map { row in
                (
                    try row.integer("id"),
                    Snapshot.Message(
                        messageId: try row.text("message_id"), deliveryId: try row.text("delivery_id"),
                        integrationKey: try row["integration_key"].text,
                        registrationToken: try row["registration_token"].text, createdAt: try row.time("created_at"))
                )
            }
        }
        emit(#","version":\#(Snapshot.currentVersion)}"#)
        flush()
    }

    /// Rows a snapshot reads at a time, and the size of the pieces it writes.
    private static let snapshotPage = 500
    private static let snapshotPiece = 256 * 1024

    private func devicePage(after: Int64) throws -> [(id: Int64, row: Snapshot.Device)] {
        try connection.query(
            """
            SELECT d.*, a.integration_key FROM devices d JOIN applications a ON a.id = d.application_id
            WHERE d.id > ? ORDER BY d.id LIMIT ?
            """, [after, Int64(Self.snapshotPage)]
        ).map { row in
            let id = try row.integer("id")
            let device = Snapshot.Device(
                integrationKey: try row.text("integration_key"),
                registrationToken: try row.text("registration_token"),
                userKey: try row.text("user_key"),
                device: try StoreReader.deviceFields(row),
                params: try StoreReader.params(row), disabled: try row.bool("disabled"),
                createdAt: try row.time("created_at"), updatedAt: try row.time("updated_at"),
                history: Snapshot.History(try history(ofDevice: id)))
            return (id, device)
        }
    }
}

extension StoreTransaction {
    // MARK: - Import, a row at a time (``SnapshotImport`` checks each row and calls these in one transaction)

    /// Empties what a snapshot replaces: applications, devices, messages and events.
    package func clearForSnapshot() throws {
        connection.applicationsChanged = true
        try connection.execute(
            "DELETE FROM tracking_events; DELETE FROM messages; DELETE FROM pushes; DELETE FROM devices; DELETE FROM applications;"
        )
    }

    /// Adds an application of a snapshot.
    ///
    /// - Returns: its row id.
    package func importApplication(_ application: Application) throws -> Int64 {
        try insertApplication(application)
        return connection.lastInsertRowID
    }

    /// The row id of the device with this token in the application, if one was imported.
    package func importedDeviceID(applicationID: Int64, token: String) throws -> Int64? {
        try connection.query(
            "SELECT id FROM devices WHERE application_id = ? AND registration_token = ?", [applicationID, token]
        ).first?.integer("id")
    }

    /// Adds a device of a snapshot with its history; times are microseconds since 1970.
    package func importDevice(_ device: Snapshot.Device, applicationID: Int64, times: (String) -> Int64) throws {
        let fields = device.device
        try connection.query(
            """
            INSERT INTO devices (application_id, registration_token, user_key, device_imei, device_name,
                device_model, device_brand, device_manufacturer, os_name, os_version, os_language, params,
                disabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                applicationID, device.registrationToken, device.userKey, fields.deviceImei,
                fields.deviceName, fields.deviceModel, fields.deviceBrand, fields.deviceManufacturer, fields.osName,
                fields.osVersion, fields.osLanguage, RegistrationJSON.params(device.params), device.disabled,
                times(device.createdAt), times(device.updatedAt),
            ])
        let deviceID = connection.lastInsertRowID
        for entry in device.history.registrations {
            try connection.query(
                """
                INSERT INTO registrations (device_id, received_at, changes, user_key, fields, params)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    deviceID, times(entry.receivedAt), entry.changes.joined(separator: ","), entry.userKey,
                    RegistrationJSON.fields(entry.device), RegistrationJSON.params(entry.params),
                ])
        }
    }

    /// An imported message's row and what it links to, if one with this `_mId` was imported.
    package func importedMessage(_ messageID: String) throws -> (row: Int64, device: Int64?, application: Int64?)? {
        try connection.query(
            "SELECT id, device_id, application_id FROM messages WHERE message_id = ?", [messageID]
        ).first.map { (try $0.integer("id"), try $0["device_id"].integer, try $0["application_id"].integer) }
    }
}
