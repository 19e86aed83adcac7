import Testing

@testable import CampaignMockModel
@testable import CampaignMockStorage

/// A row read by a name its statement did not select, or a NOT NULL read of a NULL, is an error that
/// names the column, never an empty value.
@Suite("strict rows")
struct SQLiteRowTests {
    private static func row() throws -> SQLiteRow {
        let connection = try SQLiteConnection(path: ":memory:")
        return try #require(
            try connection.query("SELECT 7 AS id, 'ios' AS platform, NULL AS reason, x'00ff' AS body, 'x' AS name")
                .first)
    }

    @Test func readsSelectedColumnsByName() throws {
        let row = try Self.row()
        #expect(try row.integer("id") == 7)
        #expect(try row.value("platform", as: Platform.self) == .ios)
        #expect(try row["reason"] == .null)
        #expect(try row["reason"].text == nil)
        #expect(try row.blob("body") == [0, 255])
    }

    /// Text is bound from its UTF-8 bytes with their length: an empty string stays text (not NULL),
    /// and every byte arrives, past an embedded NUL too.
    @Test func bindsTextByItsUTF8Bytes() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        for text in ["", "ios", "Zoë 👍 über-long text beyond fifteen bytes", "a\u{0}b"] {
            let row = try #require(
                try connection.query("SELECT typeof(?1) AS type, CAST(?1 AS BLOB) AS bytes", [text]).first)
            #expect(try row.text("type") == "text")
            #expect(try row.blob("bytes") == Array(text.utf8), "\(text)")
        }
    }

    /// Texts and blobs are bound from the statement's own copy of them, which grows when a run's values
    /// do not fit and is given back after a run with large values: every value is stored exactly,
    /// whether the copy grew before it, during its run, shrank after the last one or none of these, and
    /// an empty blob stays a blob.
    @Test func storesEveryValueWhileTheParameterCopyGrows() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t (n INTEGER, a TEXT, b BLOB, c TEXT)")
        // 600,000 bytes: past what a statement keeps between runs, so the copy is given back and grows again.
        let sizes = [0, 3, 1_000, 700, 5_000, 2, 40_000, 10, 0, 90_000, 1, 600_000, 5, 300_000, 0]
        let rows: [(String, [UInt8], String)] = sizes.enumerated().map { index, size in
            (
                String(repeating: "é", count: size / 2), (0..<size).map { UInt8(($0 + index) % 256) },
                "tail \(index) " + String(repeating: "z", count: size % 17)
            )
        }
        for (index, row) in rows.enumerated() {
            _ = try connection.query("INSERT INTO t VALUES (?, ?, ?, ?)", [index, row.0, row.1, row.2])
        }
        let stored = try connection.query("SELECT n, a, b, typeof(b) AS bType, c FROM t ORDER BY n")
        #expect(stored.count == rows.count)
        for (row, expected) in zip(stored, rows) {
            #expect(try row.text("a") == expected.0)
            #expect(try row.blob("b") == expected.1)
            #expect(try row.text("bType") == "blob")
            #expect(try row.text("c") == expected.2)
        }
    }

    /// Values given one by one (what every request's statements do) are stored exactly as the same values
    /// in an array: texts past the statement's copy, which then grows and binds them all again, empty
    /// texts, NULLs and integers.
    @Test func storesValuesGivenOneByOneWhileTheParameterCopyGrows() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t (n INTEGER, a TEXT, b TEXT, c INTEGER)")
        let sizes = [0, 3, 1_000, 700, 5_000, 2, 600_000, 5, 0]
        let rows: [(String?, String, Int64?)] = sizes.enumerated().map { index, size in
            (
                index % 3 == 1 ? nil : String(repeating: "é", count: size / 2),
                "tail \(index) " + String(repeating: "z", count: size % 17), index % 2 == 0 ? nil : Int64(-index)
            )
        }
        for (index, row) in rows.enumerated() {
            try connection.query("INSERT INTO t VALUES (?, ?, ?, ?)") {
                $0.integer(Int64(index))
                $0.text(row.0)
                $0.text(row.1)
                $0.integer(row.2)
            }
        }
        let stored = try connection.query("SELECT n, a, b, c FROM t ORDER BY n")
        #expect(stored.count == rows.count)
        for (row, expected) in zip(stored, rows) {
            #expect(try row["a"].text == expected.0)
            #expect(try row.text("b") == expected.1)
            #expect(try row["c"].integer == expected.2)
        }
    }

    /// Values in an array are bound as those given one by one: a real, a NULL, and one per parameter.
    @Test func valuesInAnArrayAreBoundOnePerParameter() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let row = try #require(try connection.query("SELECT ? AS r, ? AS n", [2.5, nil as String?]).first)
        #expect(try row["r"].real == 2.5)
        #expect(try row["n"].text == nil)
        let tooFew = try #require(throws: SQLiteError.self) { try connection.query("SELECT ?, ?", [1]) }
        #expect(tooFew.message.contains("expected 2 parameters, got 1"))
        let tooMany = try #require(throws: SQLiteError.self) { try connection.query("SELECT ?", [1, "x"]) }
        #expect(tooMany.message.contains("expected 1 parameters, got 2"))
    }

    /// Fewer or more values than the statement has parameters is an error, never a run with a missing one.
    @Test func valuesGivenOneByOneMustBeOnePerParameter() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let tooFew = try #require(throws: SQLiteError.self) {
            try connection.query("SELECT ?, ?") { $0.integer(1) }
        }
        #expect(tooFew.message.contains("expected 2 parameters, got 1"))
        let tooMany = try #require(throws: SQLiteError.self) {
            try connection.query("SELECT ?") {
                $0.integer(1)
                $0.text("x")
            }
        }
        #expect(tooMany.message.contains("expected 1 parameters, got 2"))
        #expect(try connection.query("SELECT ? AS x") { $0.text("ok") }.first?.text("x") == "ok")
    }

    @Test func anUnknownColumnIsAnErrorNamingIt() throws {
        let row = try Self.row()
        let error = try #require(throws: SQLiteError.self) { try row["identifier"] }
        #expect(error.message.contains("no column 'identifier'"))
        #expect(error.message.contains("id, platform, reason, body, name"))
        #expect(throws: SQLiteError.self) { try row.integer("ID") }
    }

    @Test func aNullOrAnotherTypeWhereAValueMustBeIsAnError() throws {
        let row = try Self.row()
        let null = try #require(throws: SQLiteError.self) { try row.text("reason") }
        #expect(null.message == "column 'reason' holds NULL, expected text")
        let text = try #require(throws: SQLiteError.self) { try row.integer("platform") }
        #expect(text.message == "column 'platform' holds text, expected an integer")
        let unknown = try #require(throws: SQLiteError.self) { try row.value("name", as: Platform.self) }
        #expect(unknown.message == "column 'name' holds 'x', not a Platform")
    }

    @Test func countsAndMaximaAreIntegersOrErrors() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        #expect(try connection.integer("SELECT coalesce(max(x), 0) FROM (SELECT 1 AS x WHERE 0)") == 0)
        #expect(throws: SQLiteError.self) { try connection.integer("SELECT 'many'") }
    }
}
