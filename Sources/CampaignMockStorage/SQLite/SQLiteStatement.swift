import CSQLite

/// A prepared statement; finalized when released. Bound parameters only: no SQL is built from data.
final class SQLiteStatement {
    fileprivate let handle: OpaquePointer
    fileprivate let connection: OpaquePointer
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
        arena.deallocate()
    }

    /// Where the text and blob parameters of a run are copied, bound with `SQLITE_STATIC`: SQLite then
    /// keeps a pointer instead of allocating its own copy of every value (with `SQLITE_TRANSIENT`, a
    /// third of a registration's binding cost). The statement owns it, and it is only replaced after
    /// the bindings are cleared, so no binding ever points into freed memory.
    private var arena = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 1)
    fileprivate var arenaUsed = 0

    /// How many `?` parameters the statement has.
    var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Binds `values` to the `?` parameters in order, runs the statement and returns every row.
    func run(_ values: [any SQLiteBindable]) throws(SQLiteError) -> [SQLiteRow] {
        try run(values.map(\.sqliteValue))
    }

    /// Binds `values` to the `?` parameters in order, runs the statement and returns every row.
    func run(_ values: [SQLiteValue]) throws(SQLiteError) -> [SQLiteRow] {
        try run { parameters in for value in values { parameters.value(value) } }
    }

    /// Binds the values `bind` gives to the `?` parameters in order, runs the statement and returns every
    /// row. The statements of every request bind this way: their values go to SQLite as they are given,
    /// with no array of ``SQLiteValue`` to build and destroy per run (given as `any SQLiteBindable`,
    /// each was also an existential to copy, about 300 instructions per value).
    func run(_ bind: (inout SQLiteParameters) -> Void) throws(SQLiteError) -> [SQLiteRow] {
        defer {
            sqlite3_reset(handle)
            if arena.count > Self.arenaKept { shrinkArena() }
        }
        var parameters = SQLiteParameters(self)
        bind(&parameters)
        if parameters.textBytes > arena.count {
            // Its texts and blobs did not all fit the arena: one that holds them, and the same values bound again.
            replaceArena(capacity: max(parameters.textBytes, 2 * arena.count))
            parameters = SQLiteParameters(self)
            bind(&parameters)
        }
        try parameters.check()
        return try rows()
    }

    /// Steps the bound statement to its end, and returns its rows.
    private func rows() throws(SQLiteError) -> [SQLiteRow] {
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

    /// `bytes` copied to the arena's free part (nil: they do not fit). Never a nil base address, even for
    /// no bytes: SQLite binds a nil text or blob as NULL.
    fileprivate func keep(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeRawBufferPointer? {
        guard bytes.count <= arena.count - arenaUsed else { return nil }
        let copy = arena.baseAddress! + arenaUsed
        if let source = bytes.baseAddress { copy.copyMemory(from: source, byteCount: bytes.count) }
        arenaUsed += bytes.count
        return UnsafeRawBufferPointer(start: copy, count: bytes.count)
    }

    /// The UTF-8 of `text` copied to the arena (nil: it does not fit), read in place: a native string's
    /// bytes are contiguous, and copying the string to a `var` for `withUTF8` cost a retain and a
    /// release per value.
    fileprivate func keep(_ text: String) -> UnsafeRawBufferPointer? {
        if let copy = text.utf8.withContiguousStorageIfAvailable(keep) { return copy }
        var text = text
        return text.withUTF8(keep)
    }

    /// The largest arena a statement keeps between runs: one that grew past it for large values (a
    /// snapshot's, a package's) is given back after its run rather than held as long as the statement.
    private static let arenaKept = 256 * 1024

    private func shrinkArena() {
        sqlite3_clear_bindings(handle)
        arena.deallocate()
        arena = .allocate(byteCount: 1024, alignment: 1)
    }

    /// Replaces the arena with one of `capacity` bytes, after clearing the bindings that point into the
    /// old one.
    private func replaceArena(capacity: Int) {
        sqlite3_clear_bindings(handle)
        arena.deallocate()
        arena = .allocate(byteCount: capacity, alignment: 1)
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

/// The values of one run of a statement, bound to its `?` parameters in the order they are given. A
/// text is copied to the statement's arena, as ``SQLiteStatement/run(_:)`` copies the texts of values;
/// one that does not fit is left unbound, and the run grows the arena and binds them all again.
package struct SQLiteParameters {
    private let statement: SQLiteStatement
    /// How many values were given.
    private var count: Int32 = 0
    /// The first refusal of SQLite's, or `SQLITE_OK`.
    private var code = SQLITE_OK
    /// The bytes of every text and blob given, whether it fit the arena or not.
    fileprivate private(set) var textBytes = 0

    fileprivate init(_ statement: SQLiteStatement) {
        self.statement = statement
        statement.arenaUsed = 0
    }

    package mutating func integer(_ value: Int64?) {
        count += 1
        guard let value else {
            note(sqlite3_bind_null(statement.handle, count))
            return
        }
        note(sqlite3_bind_int64(statement.handle, count, value))
    }

    package mutating func text(_ value: String?) {
        count += 1
        guard let value else {
            note(sqlite3_bind_null(statement.handle, count))
            return
        }
        textBytes += value.utf8.count
        guard let copy = statement.keep(value) else { return }
        note(
            sqlite3_bind_text64(
                statement.handle, count, copy.baseAddress!.assumingMemoryBound(to: CChar.self),
                sqlite3_uint64(copy.count), nil, UInt8(SQLITE_UTF8)))
    }

    /// Binds `value`, whatever its kind.
    mutating func value(_ value: SQLiteValue) {
        switch value {
        case .null: integer(nil)
        case .integer(let number): integer(number)
        case .text(let text): self.text(text)
        case .real(let number):
            count += 1
            note(sqlite3_bind_double(statement.handle, count, number))
        case .blob(let bytes):
            count += 1
            textBytes += bytes.count
            guard let copy = bytes.withUnsafeBufferPointer(statement.keep) else { return }
            note(sqlite3_bind_blob64(statement.handle, count, copy.baseAddress, sqlite3_uint64(copy.count), nil))
        }
    }

    private mutating func note(_ result: Int32) {
        if code == SQLITE_OK { code = result }
    }

    /// Throws when a value was refused, or when they were not one per parameter.
    fileprivate func check() throws(SQLiteError) {
        let expected = sqlite3_bind_parameter_count(statement.handle)
        guard count == expected else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "expected \(expected) parameters, got \(count)", sql: statement.sql)
        }
        guard code == SQLITE_OK else {
            throw SQLiteError(connection: statement.connection, code: code, sql: statement.sql)
        }
    }
}
