/// The schema, as ordered migrations. Never edit an applied migration: add a new one.
enum Schema {
    static let migrations: [Migration] = [
        Migration(
            name: "0001-applications",
            sql: """
                CREATE TABLE applications (
                    id INTEGER PRIMARY KEY,
                    integration_key TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    platform TEXT NOT NULL CHECK (platform IN ('ios', 'android')),
                    enabled INTEGER NOT NULL DEFAULT 1,
                    created_at INTEGER NOT NULL
                );
                """),
        Migration(
            name: "0002-request-journal",
            sql: """
                CREATE TABLE request_journal (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    received_at INTEGER NOT NULL,
                    method TEXT NOT NULL,
                    target TEXT NOT NULL,
                    endpoint TEXT NOT NULL,
                    headers TEXT NOT NULL,
                    body BLOB NOT NULL,
                    status INTEGER NOT NULL,
                    reason TEXT,
                    app_key TEXT,
                    duration_us INTEGER NOT NULL,
                    remote_address TEXT
                );
                CREATE TABLE store_counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
                """),
    ]
}
