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
package struct SQLiteRow: Sendable {
    package let columns: [String]
    package let values: [SQLiteValue]

    package subscript(_ index: Int) -> SQLiteValue { values[index] }

    package subscript(_ name: String) -> SQLiteValue {
        guard let index = columns.firstIndex(of: name) else { return .null }
        return values[index]
    }
}
