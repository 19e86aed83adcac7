package import CampaignMockJournal
package import CampaignMockModel

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
