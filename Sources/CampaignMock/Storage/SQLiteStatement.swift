import CSQLite

/// A prepared statement; finalized when released. Bound parameters only: no SQL is built from data.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    let sql: String

    init(connection: OpaquePointer, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(connection: connection, code: code, sql: sql)
        }
        self.handle = statement
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds `values` to the `?` parameters in order, runs the statement and returns every row.
    func run(_ values: [any SQLiteBindable]) throws(SQLiteError) -> [SQLiteRow] {
        // Every parameter is bound on every run (`bind` checks the count), so the bindings are not
        // cleared afterwards.
        defer { sqlite3_reset(handle) }
        try bind(values)
        var rows: [SQLiteRow] = []
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else { throw SQLiteError(connection: connection, code: code, sql: sql) }
            let names = columnNames
            rows.append(SQLiteRow(columns: names, values: (0..<Int32(names.count)).map(column)))
        }
    }

    /// The names of the result columns, read at the first row and kept: they are the same on every run,
    /// and reading them again made a `String` per column per run.
    private lazy var columnNames: [String] = (0..<sqlite3_column_count(handle)).map {
        String(cString: sqlite3_column_name(handle, $0))
    }

    private func bind(_ values: [any SQLiteBindable]) throws(SQLiteError) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == values.count else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "expected \(expected) parameters, got \(values.count)", sql: sql)
        }
        for (offset, bindable) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch bindable.sqliteValue {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(let text): code = bindText(text, at: index)
            case .blob(let bytes):
                code = bytes.withUnsafeBytes {
                    sqlite3_bind_blob64(handle, index, $0.baseAddress, sqlite3_uint64($0.count), CSQLite_transient())
                }
            }
            guard code == SQLITE_OK else { throw SQLiteError(connection: connection, code: code, sql: sql) }
        }
    }

    /// Binds `text` from its UTF-8 bytes with their length: handing a `String` to the C parameter made a
    /// C copy of it for every value (an allocation) and had SQLite measure it again with `strlen`.
    private func bindText(_ text: String, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            guard let start = bytes.baseAddress, bytes.count > 0 else {
                return sqlite3_bind_text(handle, index, "", 0, CSQLite_transient())
            }
            return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text64(
                    handle, index, $0, sqlite3_uint64(bytes.count), CSQLite_transient(), UInt8(SQLITE_UTF8))
            }
        }
    }

    private func column(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(handle, index)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let pointer = sqlite3_column_blob(handle, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default: return .null
        }
    }
}
