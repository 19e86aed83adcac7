import CampaignMockCore

/// One named schema change. Applied once, in order, recorded in `schema_migrations`.
struct Migration: Sendable {
    let name: String
    let sql: String
}

/// Applies the migrations a database has not seen yet, each in its own transaction.
enum SQLiteMigrator {
    /// - Returns: the names of the migrations applied now.
    /// - Throws: ``SQLiteError``, or a ``StoreError`` when the database was written by a newer version.
    @discardableResult
    static func migrate(_ connection: SQLiteConnection, _ migrations: [Migration]) throws -> [String] {
        try connection.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)")
        let applied = Set(try connection.query("SELECT name FROM schema_migrations").compactMap { $0[0].text })
        let known = Set(migrations.map(\.name))
        if let unknown = applied.subtracting(known).sorted().first {
            throw StoreError.newerSchema(migration: unknown)
        }
        var ran: [String] = []
        for migration in migrations where !applied.contains(migration.name) {
            try connection.execute("BEGIN IMMEDIATE")
            do {
                try connection.execute(migration.sql)
                try connection.query(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                    [migration.name, Clock.wallClockMicroseconds()])
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
            ran.append(migration.name)
        }
        return ran
    }
}
