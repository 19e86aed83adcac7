import CampaignMockSystem

/// One named schema change. Applied once, in order, recorded in `schema_migrations`.
struct Migration: Sendable {
    let name: String
    let sql: String
}

/// Applies the migrations a database has not seen yet, all in one transaction.
package enum SQLiteMigrator {
    /// - Parameters:
    ///   - current: the schema `migrations` build, as one script: a new, empty database runs it instead
    ///     of replaying the migrations one by one (nil: always replay).
    /// - Returns: the names of the migrations applied now.
    /// - Throws: ``SQLiteError``, or a ``StoreError`` when the database was written by a newer version.
    @discardableResult
    static func migrate(_ connection: SQLiteConnection, _ migrations: [Migration], current: String? = nil) throws
        -> [String]
    {
        try connection.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)")
        let applied = Set(try connection.query("SELECT name FROM schema_migrations").compactMap { $0[0].text })
        let known = Set(migrations.map(\.name))
        if let unknown = applied.subtracting(known).sorted().first {
            throw StoreError.newerSchema(migration: unknown)
        }
        let pending = migrations.filter { !applied.contains($0.name) }
        guard !pending.isEmpty else { return [] }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let others = try connection.scalar(
                "SELECT count(*) FROM sqlite_schema WHERE tbl_name <> 'schema_migrations'"
            ).integer
            if let current, applied.isEmpty, others == 0 {
                try connection.execute(current)
            } else {
                for migration in pending { try connection.execute(migration.sql) }
            }
            let now = Clock.wallClockMicroseconds()
            for migration in pending {
                try connection.query(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)", [migration.name, now])
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        return pending.map(\.name)
    }
}
