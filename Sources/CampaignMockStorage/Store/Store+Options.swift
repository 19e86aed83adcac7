/// An `xtk:option`: a named value with its Campaign data type (6 string, 3 long, 5 double, 7 datetime,
/// 12 memo).
package struct StoredOption: Sendable, Equatable {
    package var name: String
    package var dataType: Int
    package var value: String
    package var description: String?

    package init(
        name: String, dataType: Int, value: String, description: String? = nil
    ) {
        self.name = name
        self.dataType = dataType
        self.value = value
        self.description = description
    }
}

extension StoreReader {
    /// The option called `name`, or nil.
    package func option(_ name: String) throws -> StoredOption? {
        try connection.query("SELECT name, data_type, value, description FROM options WHERE name = ?", [name]).first
            .map { row in
                StoredOption(
                    name: try row["name"].text ?? name, dataType: Int(try row["data_type"].integer ?? 6),
                    value: try row.text("value"), description: try row["description"].text)
            }
    }
}

extension StoreTransaction {
    /// Creates or replaces an option.
    package func writeOption(_ option: StoredOption) throws {
        try connection.query(
            """
            INSERT INTO options (name, data_type, value, description) VALUES (?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET data_type = excluded.data_type, value = excluded.value,
            description = coalesce(excluded.description, options.description)
            """, [option.name, Int64(option.dataType), option.value, option.description])
    }

    /// Deletes an option; false when there was none.
    package func deleteOption(_ name: String) throws -> Bool {
        try connection.query("DELETE FROM options WHERE name = ?", [name])
        return connection.changes > 0
    }

    /// `count` fresh ids from one sequence shared by every `GetNewIdsEx` caller.
    package func newIDs(_ count: Int) throws -> [Int64] {
        let current = try connection.scalar("SELECT value FROM store_counters WHERE name = 'soap-ids'").integer
        let first = max(current ?? 0, 1000) + 1
        try connection.query(
            "INSERT INTO store_counters (name, value) VALUES ('soap-ids', ?) "
                + "ON CONFLICT (name) DO UPDATE SET value = excluded.value", [first + Int64(count) - 1])
        return (0..<Int64(count)).map { first + $0 }
    }
}
