import CampaignMockCore

/// What the journal stores for one request (the id and time are assigned on insert).
package struct JournalRecord: Sendable {
    package var receivedAtMicros: Int64
    package var method: String
    package var target: String
    package var endpoint: String
    package var headersJSON: String
    package var body: [UInt8]
    package var status: Int
    package var reason: String?
    package var appKey: String?
    package var durationMicros: Int64
    package var remoteAddress: String?
    /// Monotonic time the request arrived; ``finished()`` turns it into the duration.
    package var monotonicStart: UInt64 = 0

    /// The record with its duration measured up to now (the write runs just before the commit).
    package func finished() -> JournalRecord {
        var record = self
        if monotonicStart != 0 {
            record.durationMicros = Int64((Clock.monotonicNanoseconds() &- monotonicStart) / 1000)
        }
        return record
    }
}

extension StoreTransaction {
    /// Appends a request to the journal.
    package func appendJournal(_ record: JournalRecord) throws {
        // Ids only grow, also across a reset: the highest id ever given is the larger of the table's
        // and `journal_last_id`, which a deletion of journal rows keeps first (``keepLastJournalID()``).
        let id =
            try connection.nextJournalID
            ?? connection.integer(
                """
                SELECT max(coalesce((SELECT max(id) FROM request_journal), 0),
                    coalesce((SELECT value FROM store_counters WHERE name = 'journal_last_id'), 0)) + 1
                """)
        try connection.query(
            """
            INSERT INTO request_journal (id, received_at, method, target, endpoint, headers, body, status, reason,
                app_key, duration_us, remote_address) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            values: [
                .integer(id), .integer(record.receivedAtMicros), .text(record.method), .text(record.target),
                .text(record.endpoint), .text(record.headersJSON), .blob(record.body), .integer(Int64(record.status)),
                record.reason.sqliteValue, record.appKey.sqliteValue, .integer(record.durationMicros),
                record.remoteAddress.sqliteValue,
            ])
        connection.nextJournalID = id + 1
        if let count = connection.journalCount { connection.journalCount = count + 1 }
        self.record(.request(id: id, record))
    }

    /// Notes the highest journal id given so far, before journal rows are deleted, so the ids of later
    /// entries keep growing (a `wait` or a page cursor from before the deletion stays valid). Trimming
    /// needs none: it keeps at least the newest entry.
    func keepLastJournalID() throws {
        try connection.query(
            """
            INSERT INTO store_counters (name, value)
                SELECT 'journal_last_id', coalesce(max(id), 0) FROM request_journal WHERE true
                ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)
            """)
    }

    /// Deletes the oldest entries beyond `limit` and counts them as dropped.
    package func trimJournal(to limit: Int) throws {
        let count =
            try connection.journalCount ?? connection.integer("SELECT count(*) FROM request_journal")
        connection.journalCount = count
        let excess = count - Int64(limit)
        guard excess > 0 else { return }
        try connection.query(
            "DELETE FROM request_journal WHERE id IN (SELECT id FROM request_journal ORDER BY id LIMIT ?)", [excess])
        connection.journalCount = count - excess
        try connection.query(
            """
            INSERT INTO store_counters (name, value) VALUES ('journal_dropped', ?)
            ON CONFLICT (name) DO UPDATE SET value = value + excluded.value
            """, [excess])
    }

    /// Empties the journal and its dropped count; returns how many entries were deleted.
    package func clearJournal() throws -> Int {
        try keepLastJournalID()
        try connection.query("DELETE FROM request_journal")
        connection.journalCount = 0
        let deleted = connection.changes
        try connection.query("DELETE FROM store_counters WHERE name = 'journal_dropped'")
        return deleted
    }
}

extension StoreReader {
    /// Journal entries with id greater than `after` matching `filter`, oldest first, at most `limit`.
    package func journalPage(after: Int64, limit: Int, filter: JournalFilter = JournalFilter(), upTo: Int64? = nil)
        throws
        -> JournalPage
    {
        let rows = try connection.query(
            """
            SELECT id, received_at, method, target, endpoint, headers, body, status, reason, app_key,
                duration_us, remote_address
            FROM request_journal
            WHERE id > ? AND (? IS NULL OR endpoint = ?) AND (? IS NULL OR status = ?) AND (? IS NULL OR app_key = ?)
                AND (? IS NULL OR received_at >= ?) AND (? IS NULL OR id <= ?)
            ORDER BY id LIMIT ?
            """,
            [
                after, filter.endpoint, filter.endpoint, filter.status, filter.status, filter.appKey, filter.appKey,
                filter.since, filter.since, upTo, upTo, limit + 1,
            ])
        let entries = try rows.prefix(limit).map(Self.entry)
        let dropped = try connection.integer(
            "SELECT coalesce((SELECT value FROM store_counters WHERE name = 'journal_dropped'), 0)")
        return JournalPage(
            requests: entries, dropped: dropped,
            nextCursor: rows.count > limit ? entries.last?.id : nil)
    }

    /// The newest journal id (0 when empty), where a wait that counts from now starts.
    package func lastJournalID() throws -> Int64 {
        try connection.integer("SELECT coalesce(max(id), 0) FROM request_journal")
    }

    /// How many entries the journal holds.
    package func journalCount() throws -> Int64 {
        try connection.integer("SELECT count(*) FROM request_journal")
    }

    private static func entry(_ row: SQLiteRow) throws -> JournalEntry {
        JournalEntry(
            id: try row.integer("id"),
            record: JournalRecord(
                receivedAtMicros: try row.integer("received_at"),
                method: try row.text("method"),
                target: try row.text("target"),
                endpoint: try row.text("endpoint"),
                headersJSON: try row.text("headers"),
                body: try row.blob("body"),
                status: Int(try row.integer("status")),
                reason: try row["reason"].text,
                appKey: try row["app_key"].text,
                durationMicros: try row.integer("duration_us"),
                remoteAddress: try row["remote_address"].text))
    }
}

extension JournalEntry {
    /// The entry the admin API shows for the stored `record`.
    init(id: Int64, record: JournalRecord) {
        let kept = Array(record.body.prefix(JournalEntry.bodyLimit))
        let text = String(validating: kept, as: UTF8.self)
        self.init(
            id: id,
            receivedAt: HTTPDate.iso8601(microsecondsSince1970: record.receivedAtMicros),
            method: record.method,
            target: record.target,
            endpoint: record.endpoint,
            headers: JSONArrays.decodePairs(record.headersJSON),
            body: text ?? Base64.encode(kept),
            bodyEncoding: text == nil ? "base64" : "utf-8",
            bodyTruncated: record.body.count > JournalEntry.bodyLimit,
            status: record.status,
            reason: record.reason,
            appKey: record.appKey,
            durationMs: Double(record.durationMicros) / 1000,
            remoteAddress: record.remoteAddress)
    }
}
