import CSQLite

/// An error reported by SQLite, with the statement that caused it.
package struct SQLiteError: Error, Equatable, CustomStringConvertible {
    /// The primary result code, e.g. `SQLITE_CONSTRAINT` (19).
    package let code: Int32
    /// The extended result code, e.g. `SQLITE_CONSTRAINT_UNIQUE` (2067).
    package let extendedCode: Int32
    package let message: String
    /// The SQL being run, if any.
    package let sql: String?

    init(connection: OpaquePointer?, code: Int32, sql: String?) {
        self.code = code & 0xFF
        self.extendedCode = connection.map { sqlite3_extended_errcode($0) } ?? code
        self.message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        self.sql = sql
    }

    package init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.extendedCode = code
        self.message = message
        self.sql = sql
    }

    /// Whether a UNIQUE or PRIMARY KEY constraint failed.
    /// SQLITE_CONSTRAINT_FOREIGNKEY: a row names a parent that is not there (any more).
    package var isForeignKeyViolation: Bool { extendedCode == SQLITE_CONSTRAINT | (3 << 8) }

    package var isUniqueViolation: Bool {
        // SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY are macros Swift cannot import.
        extendedCode == SQLITE_CONSTRAINT | (8 << 8) || extendedCode == SQLITE_CONSTRAINT | (6 << 8)
    }

    package var description: String {
        "SQLite error \(extendedCode): \(message)" + (sql.map { " (in: \($0.prefix(200)))" } ?? "")
    }
}
