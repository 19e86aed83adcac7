import CSQLite
package import CampaignMockJournal

/// One connection to a SQLite database, over the C API. Used by one thread at a time.
///
/// Its state, changed several times per write, is marked `@exclusivity(unchecked)`: used by one thread at
/// a time and never passed `inout` twice at once, it needs no run-time exclusivity check, which (a
/// thread-local lookup each time) cost about 80 instructions per access, a dozen per tracking hit.
package final class SQLiteConnection {
    private let handle: OpaquePointer
    @exclusivity(unchecked) private var statements: [StatementKey: SQLiteStatement] = [:]
    private var walHook: WALHook?
    /// The file path, or `:memory:`.
    package let path: String
    /// Whether the `messages` table may hold a row (nil: not looked yet). It only ever turns true while
    /// the process runs, so a tracking hit skips the issued-message lookup while no push was composed.
    /// Used on the writer's connection, by its one thread.
    @exclusivity(unchecked) package var mayHaveMessages: Bool?
    /// Whether the transaction under way wrote the `applications` table; the store's writer reads and
    /// clears it after each commit to drop its in-memory copy of the applications.
    @exclusivity(unchecked) package var applicationsChanged = false
    /// The journal changes of the transaction under way, in order; the store's writer writes them to
    /// the journal's file with the batch (see ``JournalLog``), and drops what a rollback undid.
    @exclusivity(unchecked) package var journalChanges: [JournalChange] = []
    /// The id the next journal entry gets (nil: not known yet; then one more than the highest id the
    /// journal ever held, see ``StoreTransaction/appendJournal(_:)``). A rolled-back batch leaves a gap
    /// in the ids, never a repeat.
    @exclusivity(unchecked) package var nextJournalID: Int64?
    /// The rows the transaction under way wrote, noted as it writes them. The store's writer hands them
    /// to its ``ChangeSink`` after the commit, and drops what a rollback undid; see ``CommittedChange``.
    @exclusivity(unchecked) package var recordedChanges: [CommittedChange] = []
    /// Whether written rows are noted (off during a state import).
    @exclusivity(unchecked) package var recording = true

    /// SQLite's process-wide settings, made once before the first connection opens: no memory statistics
    /// (nothing reads them, and counting took a process-wide mutex around each of SQLite's allocations,
    /// about eight per tracking hit). Refused, harmlessly, if SQLite was already initialized.
    private static let configured: Void = { _ = CSQLite_disableMemoryStatistics() }()

    /// Opens (and creates) the database at `path`; `:memory:` opens a private in-memory database.
    package init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        _ = Self.configured
        var connection: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI | SQLITE_OPEN_NOFOLLOW
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let error = SQLiteError(connection: connection, code: code, sql: nil)
            sqlite3_close_v2(connection)
            throw error
        }
        self.handle = connection
        self.path = path
        sqlite3_extended_result_codes(connection, 1)
        sqlite3_busy_timeout(connection, 5000)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements without parameters (schema, pragmas, transaction control).
    package func execute(_ sql: String) throws(SQLiteError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(connection: handle, code: code, sql: sql) }
    }

    /// Runs one statement with bound parameters and returns its rows. Statements are prepared once and cached.
    @discardableResult
    package func query(_ sql: String, _ values: [any SQLiteBindable] = []) throws(SQLiteError) -> [SQLiteRow] {
        try statement(sql).run(values)
    }

    /// The same, for values given one by one to `bind`, in order: what the statements of every request
    /// use, as binding them costs less (see `SQLiteStatement.run` with a closure).
    @discardableResult
    package func query(_ sql: String, binding bind: (inout SQLiteParameters) -> Void) throws(SQLiteError)
        -> [SQLiteRow]
    {
        try statement(sql).run(bind)
    }

    /// The prepared statement for `sql`, from the cache or prepared now.
    private func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        let key = StatementKey(sql: sql)
        if let cached = statements[key] { return cached }
        let statement = try SQLiteStatement(connection: handle, sql: sql)
        statements[key] = statement
        return statement
    }

    /// The text of every statement this connection prepared (and keeps cached): what `QueryPlanTests`
    /// asks SQLite to plan.
    package var preparedStatements: [String] { statements.keys.map(\.sql) }

    /// How SQLite would run `sql`: the details of its `EXPLAIN QUERY PLAN`, its parameters NULL.
    package func plan(of sql: String) throws(SQLiteError) -> [String] {
        let explain = try SQLiteStatement(connection: handle, sql: "EXPLAIN QUERY PLAN " + sql)
        return try explain.run([SQLiteValue](repeating: .null, count: explain.parameterCount)).map {
            (try? $0["detail"].text) ?? ""
        }
    }

    /// The first column of the first row, or `.null`.
    package func scalar(_ sql: String, _ values: [any SQLiteBindable] = []) throws(SQLiteError) -> SQLiteValue {
        try query(sql, values).first?[0] ?? .null
    }

    /// The integer a query that always answers one (a `count(*)`, a `coalesce(max(id), 0)`) answered;
    /// anything else is an error rather than a zero.
    package func integer(_ sql: String, _ values: [any SQLiteBindable] = []) throws(SQLiteError) -> Int64 {
        guard case .integer(let value) = try scalar(sql, values) else {
            throw SQLiteError(code: 20, message: "expected one integer", sql: sql)
        }
        return value
    }

    /// Calls `body` with the number of pages in the write-ahead log after each commit of this
    /// connection. This replaces SQLite's automatic checkpoint (which is such a hook): the connection
    /// no longer checkpoints by itself.
    package func afterEachCommit(walPages body: @escaping (Int) -> Void) {
        let hook = WALHook(body)
        walHook = hook
        sqlite3_wal_hook(
            handle,
            { context, _, _, pages in
                if let context { Unmanaged<WALHook>.fromOpaque(context).takeUnretainedValue().body(Int(pages)) }
                return SQLITE_OK
            }, Unmanaged.passUnretained(hook).toOpaque())
    }

    /// Keeps the hook's closure alive as long as the connection.
    private final class WALHook {
        let body: (Int) -> Void
        init(_ body: @escaping (Int) -> Void) { self.body = body }
    }

    /// The statement cache's key: the SQL text, hashed by its length and two words of it (the last eight
    /// bytes and eight from the middle). Hashing the whole text (hundreds of bytes) cost about 900
    /// instructions per statement, four times per tracking hit, and its last 48 bytes still about 400;
    /// equal keys still need equal text, so texts that share a hash only share a bucket.
    private struct StatementKey: Hashable {
        let sql: String

        func hash(into hasher: inout Hasher) {
            var sql = sql
            sql.withUTF8 { bytes in
                let raw = UnsafeRawBufferPointer(bytes)
                hasher.combine(raw.count)
                if raw.count < 16 {
                    hasher.combine(bytes: raw)
                } else {
                    hasher.combine(raw.loadUnaligned(fromByteOffset: raw.count / 2, as: UInt64.self))
                    hasher.combine(raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self))
                }
            }
        }
    }

    /// The rowid of the last successful INSERT on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes(handle)) }
}

@available(*, unavailable)
extension SQLiteConnection: Sendable {}
