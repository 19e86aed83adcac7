import CampaignMockSystem

/// A value bound to or read from SQLite.
package enum SQLiteValue: Sendable, Equatable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    package var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    package var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    package var real: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }

    package var blob: [UInt8]? {
        switch self {
        case .blob(let value): return value
        case .text(let value): return Array(value.utf8)
        default: return nil
        }
    }
}

/// Types that bind as one SQLite value.
package protocol SQLiteBindable {
    var sqliteValue: SQLiteValue { get }
}

extension Int: SQLiteBindable { package var sqliteValue: SQLiteValue { .integer(Int64(self)) } }
extension Int64: SQLiteBindable { package var sqliteValue: SQLiteValue { .integer(self) } }
extension Double: SQLiteBindable { package var sqliteValue: SQLiteValue { .real(self) } }
extension String: SQLiteBindable { package var sqliteValue: SQLiteValue { .text(self) } }
extension Bool: SQLiteBindable { package var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) } }
extension Array: SQLiteBindable where Element == UInt8 { package var sqliteValue: SQLiteValue { .blob(self) } }
extension SQLiteValue: SQLiteBindable { package var sqliteValue: SQLiteValue { self } }
extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    package var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}

/// One result row, by column name or position.
///
/// Reading a column the statement did not select is an error, never a NULL: a misspelt name or a
/// column dropped from a query fails the read loudly instead of turning into an empty value. The
/// typed reads (`integer`, `text`, `blob`) are for NOT NULL columns and fail on NULL or another type;
/// nullable columns read through the subscript (`try row["reason"].text`).
package struct SQLiteRow: Sendable {
    package let columns: [String]
    package let values: [SQLiteValue]

    package subscript(_ index: Int) -> SQLiteValue { values[index] }

    /// The value of the column named `name`.
    ///
    /// - Throws: ``SQLiteError`` naming the column when the statement has no such column.
    package subscript(_ name: String) -> SQLiteValue {
        get throws(SQLiteError) {
            guard let index = columns.firstIndex(of: name) else {
                throw SQLiteError(
                    code: 1, message: "no column '\(name)' in this row (columns: \(columns.joined(separator: ", ")))")
            }
            return values[index]
        }
    }

    /// A NOT NULL integer column.
    package func integer(_ name: String) throws(SQLiteError) -> Int64 {
        guard let value = try self[name].integer else { throw mismatch(name, "an integer") }
        return value
    }

    /// A NOT NULL text column.
    package func text(_ name: String) throws(SQLiteError) -> String {
        guard let value = try self[name].text else { throw mismatch(name, "text") }
        return value
    }

    /// A NOT NULL blob column (text reads as its UTF-8 bytes).
    package func blob(_ name: String) throws(SQLiteError) -> [UInt8] {
        guard let value = try self[name].blob else { throw mismatch(name, "a blob") }
        return value
    }

    /// A NOT NULL 0/1 column.
    package func bool(_ name: String) throws(SQLiteError) -> Bool {
        try integer(name) != 0
    }

    /// A NOT NULL text column holding one of a closed set of values (a CHECK constraint keeps others out).
    package func value<Value: RawRepresentable>(_ name: String, as type: Value.Type) throws(SQLiteError) -> Value
    where Value.RawValue == String {
        let text = try text(name)
        guard let value = Value(rawValue: text) else {
            throw SQLiteError(code: 20, message: "column '\(name)' holds '\(text)', not a \(Value.self)")
        }
        return value
    }

    /// A NOT NULL column holding microseconds since 1970, as ISO 8601.
    package func time(_ name: String) throws(SQLiteError) -> String {
        RFC3339.string(microsecondsSince1970: try integer(name))
    }

    private func mismatch(_ name: String, _ expected: String) -> SQLiteError {
        let found = (try? self[name]).map { value -> String in
            switch value {
            case .null: "NULL"
            case .integer: "an integer"
            case .real: "a real"
            case .text: "text"
            case .blob: "a blob"
            }
        }
        return SQLiteError(code: 20, message: "column '\(name)' holds \(found ?? "nothing"), expected \(expected)")
    }
}
