package import CampaignMockModel
import CampaignMockSupport
import CampaignMockSystem

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
    /// The answer's headers (those the endpoint set, as `JSONArrays` writes them) and body, up to
    /// ``JournalEntry/bodyLimit`` bytes and one more; nil for entries written before the journal kept them.
    package var responseHeadersJSON: String? = nil
    package var responseBody: [UInt8] = []
    /// Monotonic time the request arrived; ``finished()`` turns it into the duration.
    package var monotonicStart: UInt64 = 0
    /// What became of the request, in types, for the sink's subscribers (the integration checks); in memory
    /// only, not in the journal's file: nil in a record read back from it.
    package var fact: RequestFact? = nil

    /// The record with its duration measured up to now (the write runs just before the commit).
    package func finished() -> JournalRecord {
        var record = self
        if monotonicStart != 0 {
            record.durationMicros = Int64((Clock.monotonicNanoseconds() &- monotonicStart) / 1000)
        }
        return record
    }

    package init(
        receivedAtMicros: Int64, method: String, target: String, endpoint: String, headersJSON: String, body: [UInt8],
        status: Int, reason: String? = nil, appKey: String? = nil, durationMicros: Int64, remoteAddress: String? = nil,
        responseHeadersJSON: String? = nil, responseBody: [UInt8] = [], monotonicStart: UInt64 = 0
    ) {
        self.receivedAtMicros = receivedAtMicros
        self.method = method
        self.target = target
        self.endpoint = endpoint
        self.headersJSON = headersJSON
        self.body = body
        self.status = status
        self.reason = reason
        self.appKey = appKey
        self.durationMicros = durationMicros
        self.remoteAddress = remoteAddress
        self.responseHeadersJSON = responseHeadersJSON
        self.responseBody = responseBody
        self.monotonicStart = monotonicStart
    }
}

extension StoreTransaction {
    /// Appends a request to the journal. It is written to the journal's file with the rest of the batch,
    /// and visible once the batch has committed (see ``JournalLog``).
    package func appendJournal(_ record: JournalRecord) {
        // Ids only grow, also across clears and restarts: the writer hands them out from the highest
        // id the journal ever held. A rolled-back batch leaves a gap, never a repeat.
        let id = connection.nextJournalID ?? journal.lastID + 1
        connection.journalChanges.append(.append(id: id, record))
        connection.nextJournalID = id + 1
        self.record(.request(id: id, record))
    }

    /// Empties the journal (and its dropped count), or deletes the entries naming `appKey`; returns how
    /// many entries are deleted.
    package func clearJournal(appKey: String? = nil) -> Int {
        let deleted = journal.countCleared(appKey: appKey, after: connection.journalChanges)
        connection.journalChanges.append(.clear(appKey: appKey))
        return deleted
    }
}

extension StoreReader {
    /// A page of the journal entries matching `filter`, at most `limit`.
    package func journalPage(
        _ paging: Paging, limit: Int, filter: JournalFilter = JournalFilter(), upTo: Int64? = nil
    ) throws -> JournalPage {
        try journal.page(paging, limit: limit, filter: filter, upTo: upTo, counting: true)
    }

    /// Journal entries with id greater than `after` matching `filter`, oldest first, at most `limit`.
    package func journalPage(after: Int64, limit: Int, filter: JournalFilter = JournalFilter(), upTo: Int64? = nil)
        throws -> JournalPage
    {
        try journal.page(.oldestFirst(after: after), limit: limit, filter: filter, upTo: upTo, counting: false)
    }

    /// The journal entry `id`, or nil when the journal no longer holds it.
    package func journalEntry(id: Int64) throws -> JournalEntry? {
        try journal.entry(id: id)
    }

    /// The highest journal id given so far (0 when none), where a wait that counts from now starts.
    package func lastJournalID() -> Int64 {
        journal.lastID
    }

    /// How many entries the journal holds.
    package func journalCount() -> Int {
        journal.count
    }

    /// How many entries were dropped because the journal was full, since it was last emptied.
    package func journalDropped() -> Int64 {
        journal.dropped
    }
}

extension JournalLog {
    /// Moves the journal of a database from before migration 0013, a table, into the journal's files,
    /// before the migration drops the table. Only into files that hold no entry: the table is there
    /// until the migration commits, so a start that stopped before the import's batch was written does
    /// it again, and one that stopped after finds the entries and leaves them.
    func importTable(from connection: SQLiteConnection) throws {
        let exists = { (table: String) throws -> Bool in
            try connection.integer("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?", [table]) == 1
        }
        guard try exists("request_journal"), count == 0 else { return }
        // The highest id given: kept in `store_counters` since migration 0010, by AUTOINCREMENT before.
        let counter = { (name: String) throws -> Int64 in
            guard try exists("store_counters") else { return 0 }
            return try connection.integer(
                "SELECT coalesce((SELECT value FROM store_counters WHERE name = ?), 0)", [name])
        }
        let sequence =
            try exists("sqlite_sequence")
            ? try connection.integer(
                "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'request_journal'), 0)") : 0
        let rows = try connection.query(
            """
            SELECT id, received_at, method, target, endpoint, headers, body, status, reason, app_key,
                duration_us, remote_address
            FROM request_journal ORDER BY id
            """)
        let entries = try rows.map { row in
            (
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
                    remoteAddress: try row["remote_address"].text)
            )
        }
        try importEntries(
            entries, lastID: max(counter("journal_last_id"), sequence, entries.last?.id ?? 0),
            dropped: counter("journal_dropped"))
    }
}

extension JournalEntry {
    /// The entry the admin API shows for the stored `record`.
    init(id: Int64, record: JournalRecord) {
        let (body, encoding, truncated) = Self.kept(record.body)
        self.init(
            id: id,
            receivedAt: RFC3339.string(microsecondsSince1970: record.receivedAtMicros),
            method: record.method,
            target: record.target,
            endpoint: record.endpoint,
            headers: JSONArrays.decodePairs(record.headersJSON),
            body: body,
            bodyEncoding: encoding,
            bodyTruncated: truncated,
            status: record.status,
            reason: record.reason,
            appKey: record.appKey,
            durationMs: Double(record.durationMicros) / 1000,
            remoteAddress: record.remoteAddress,
            response: record.responseHeadersJSON.map { headers in
                let (body, encoding, truncated) = Self.kept(record.responseBody)
                return JournalResponse(
                    headers: JSONArrays.decodePairs(headers), body: body, bodyEncoding: encoding,
                    bodyTruncated: truncated)
            })
    }

    /// A body as the journal shows it: the text (base64 when it is not UTF-8), its encoding, and whether
    /// it was longer than the journal keeps.
    private static func kept(_ body: [UInt8]) -> (String, String, Bool) {
        let kept = Array(body.prefix(JournalEntry.bodyLimit))
        let text = String(validating: kept, as: UTF8.self)
        return (text ?? Base64.encode(kept), text == nil ? "base64" : "utf-8", body.count > JournalEntry.bodyLimit)
    }
}
