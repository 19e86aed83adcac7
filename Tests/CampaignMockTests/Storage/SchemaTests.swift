import Testing

@testable import CampaignMockStorage

/// A new database is made from ``Schema/current``, an existing one is brought up to date by the
/// migrations: both must end with the same schema.
@Suite struct SchemaTests {
    /// Every table and index by name, with its SQL without the layout: whitespace collapsed, and none
    /// around commas and parentheses (`ALTER TABLE … ADD COLUMN` writes the new column where it can).
    private func schema(_ connection: SQLiteConnection) throws -> [String: String] {
        // `sqlite_sequence` is SQLite's own: a database migrated from before 0010 keeps it (empty).
        let rows = try connection.query(
            """
            SELECT type, name, sql FROM sqlite_schema
            WHERE sql IS NOT NULL AND tbl_name NOT IN ('schema_migrations', 'sqlite_sequence')
            """)
        var objects: [String: String] = [:]
        for row in rows {
            let words = (row[2].text ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
            var sql = ""
            for character in words {
                if character == " ", let last = sql.last, ",()".contains(last) { continue }
                if ",()".contains(character), sql.last == " " { sql.removeLast() }
                sql.append(character)
            }
            objects["\(row[0].text ?? "") \(row[1].text ?? "")"] = sql
        }
        return objects
    }

    private func migrated(current: String?) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: ":memory:")
        let applied = try SQLiteMigrator.migrate(connection, Schema.migrations, current: current)
        #expect(applied == Schema.migrations.map(\.name))
        return connection
    }

    @Test func theCurrentSchemaIsWhatTheMigrationsBuild() throws {
        let replayed = try schema(migrated(current: nil))
        let current = try schema(migrated(current: Schema.current))
        #expect(replayed.count > 20)
        #expect(Set(current.keys) == Set(replayed.keys))
        for (name, sql) in replayed {
            #expect(current[name] == sql, "\(name)")
        }
    }

    /// The index of events by device leaves unlinked hits out (it is partial); looking up a device's
    /// events, and clearing them when the device is deleted, must still use it.
    @Test func aDevicesEventsAreFoundThroughItsPartialIndex() throws {
        for connection in [try migrated(current: nil), try migrated(current: Schema.current)] {
            for statement in [
                "SELECT id, raw_id FROM tracking_events WHERE device_id = ?",
                "UPDATE tracking_events SET device_id = NULL WHERE device_id = ?",
            ] {
                let plan = try connection.query("EXPLAIN QUERY PLAN " + statement, [Int64(1)])
                let details = try plan.map { try $0["detail"].text ?? "" }
                #expect(details.contains { $0.contains("INDEX tracking_events_device") }, "\(statement): \(details)")
            }
        }
    }

    /// There is no index of devices by token alone: lookups by token go through the unique
    /// (application_id, registration_token) index, never a scan of every device. Retention has its index
    /// by last registration.
    @Test func devicesAreFoundByTokenThroughTheUniqueIndex() throws {
        for connection in [try migrated(current: nil), try migrated(current: Schema.current)] {
            let indexes = try connection.query(
                "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'devices'")
            #expect(
                try indexes.map { try $0.text("name") }.sorted() == [
                    "devices_updated", "devices_user_key", "sqlite_autoindex_devices_1",
                ])
            let plan = try connection.query(
                "EXPLAIN QUERY PLAN SELECT d.id FROM devices d JOIN applications a ON a.id = d.application_id WHERE "
                    + DeviceLookup.byToken, ["token"])
            let details = try plan.map { try $0.text("detail") }
            #expect(
                details.contains {
                    $0.contains("sqlite_autoindex_devices_1 (application_id=? AND registration_token=?)")
                }, "\(details)")
            #expect(!details.contains { $0.hasPrefix("SCAN d") }, "\(details)")
        }
    }

    /// What the console and tests filter by at volume goes through an index: a device's events, a SOAP
    /// query by token, devices by userKey. (Events by message id are not: an index of them cost a hit
    /// 14k instructions and a fifth of the tracking throughput; such a filter reads every event.)
    @Test func theFiltersOfALongLivedInstanceUseIndexes() throws {
        let devices = try #require(QuerySchemas.tables["nms:appSubscriptionRcp"]).from
        let cases: [(String, [any SQLiteBindable], String)] = [
            (
                "SELECT e.id FROM tracking_events e WHERE e.device_id IN (SELECT d.id FROM devices d WHERE "
                    + DeviceLookup.byToken + ") ORDER BY e.id DESC LIMIT 101", ["token"], "INDEX tracking_events_device"
            ),
            (
                "SELECT d.id \(devices) WHERE d.registration_token = ?", ["token"],
                "sqlite_autoindex_devices_1 (application_id=? AND registration_token=?)"
            ),
            ("SELECT d.id \(devices) WHERE d.user_key = ?", ["jane"], "INDEX devices_user_key"),
        ]
        for connection in [try migrated(current: nil), try migrated(current: Schema.current)] {
            for (statement, values, index) in cases {
                let details = try connection.query("EXPLAIN QUERY PLAN " + statement, values).map {
                    try $0.text("detail")
                }
                #expect(details.contains { $0.contains(index) }, "\(statement): \(details)")
                #expect(
                    !details.contains { $0.hasPrefix("SCAN e") || $0.hasPrefix("SCAN d") }, "\(statement): \(details)")
            }
        }
    }

    @Test func theCurrentSchemaHasTheRowsTheMigrationsInsert() throws {
        for connection in [try migrated(current: nil), try migrated(current: Schema.current)] {
            let options = try connection.query("SELECT name, data_type, length(value) FROM options")
            #expect(
                options.map { [$0[0].text, $0[1].integer.map(String.init), $0[2].integer.map(String.init)] }
                    == [["XtkDatabaseId", "6", "17"]])
        }
    }

    @Test func onlyANewDatabaseIsMadeFromTheCurrentSchema() throws {
        let migrations = [Migration(name: "0001-a", sql: "CREATE TABLE a (x);")]
        let tables = "SELECT group_concat(name) FROM sqlite_schema WHERE type = 'table' AND name IN ('a', 'b', 'old')"
        let fresh = try SQLiteConnection(path: ":memory:")
        #expect(try SQLiteMigrator.migrate(fresh, migrations, current: "CREATE TABLE b (x);") == ["0001-a"])
        #expect(try fresh.scalar(tables).text == "b")

        let used = try SQLiteConnection(path: ":memory:")
        try used.execute("CREATE TABLE old (x)")
        #expect(try SQLiteMigrator.migrate(used, migrations, current: "CREATE TABLE b (x);") == ["0001-a"])
        #expect(try used.scalar(tables).text == "old,a")
    }

    /// A migration a database ran is never edited: that database would not see the change (and the tables
    /// ``Schema/current`` shares with the migrations would drift from it unseen). Each one's text is pinned by
    /// its 64-bit FNV-1a hash; a new migration adds its line.
    @Test func noAppliedMigrationIsEdited() {
        let pinned: [String: UInt64] = [
            "0001-applications": 0xfde3_9947_ccb6_f7fd,
            "0002-request-journal": 0xc3cf_7799_0ccc_c9f0,
            "0003-devices": 0x797b_64d3_e7bf_448c,
            "0004-tracking": 0xdfee_f0dd_5ac2_9112,
            "0005-recipients": 0xa3be_727e_db8c_3995,
            "0006-pushes": 0xede6_ccaf_c4c0_0411,
            "0007-options": 0x1e0d_0b81_2bef_68ea,
            "0008-events-enumerations-packages": 0x9b64_2e11_29b8_dfe6,
            "0009-device-params-inline": 0x94c6_432f_99bf_09b4,
            "0010-journal-ids-from-the-writer": 0x5bbc_1c71_2539_92aa,
            "0011-events-by-device-only-when-linked": 0xfa35_f48d_392f_7466,
            "0012-devices-by-token-through-the-unique-index": 0x738d_47a4_dcfa_5116,
            "0013-journal-in-its-own-files": 0x9300_4723_6b2f_aa57,
            "0014-devices-by-last-registration": 0xedb4_7dd5_9cfb_b989,
            "0015-application-bundle-id-and-package": 0x7f1c_15c3_ac3a_b945,
            "0016-push-sends": 0x225d_6e57_51b1_07b8,
            "0017-events-and-messages-by-what-they-belong-to": 0x6d26_c4d2_82a7_7cb1,
        ]
        let hashes = Schema.migrations.map { migration in
            (
                migration.name,
                migration.sql.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
            )
        }
        #expect(Dictionary(uniqueKeysWithValues: hashes) == pinned)
    }

    @Test func aDatabaseMadeFromTheCurrentSchemaHasNothingLeftToMigrate() throws {
        let connection = try migrated(current: Schema.current)
        #expect(try SQLiteMigrator.migrate(connection, Schema.migrations, current: Schema.current).isEmpty)
    }
}

extension SchemaTests {
    /// Every step of a retention sweep goes through an index: none sorts or scans the devices or the
    /// events, so a sweep costs the same whatever the store's size.
    @Test func retentionSweepsThroughIndexes() throws {
        let connection = try migrated(current: Schema.current)
        for statement in [
            "SELECT updated_at, id FROM devices ORDER BY updated_at DESC, id DESC LIMIT 1 OFFSET 10",
            "SELECT id FROM devices WHERE (updated_at, id) <= (1, 1) ORDER BY updated_at, id LIMIT 10",
            "SELECT min(id) FROM tracking_events",
            "SELECT id FROM devices WHERE updated_at < 1 ORDER BY updated_at LIMIT 10",
            "SELECT id FROM tracking_events WHERE id <= 1 ORDER BY id LIMIT 10",
            "SELECT max(id) FROM registrations",
        ] {
            let details = try connection.query("EXPLAIN QUERY PLAN " + statement).map { try $0.text("detail") }
            let sortsOrScans = details.contains {
                $0.contains("TEMP B-TREE") || ($0.hasPrefix("SCAN") && !$0.contains("INDEX"))
            }
            #expect(!sortsOrScans, "\(statement): \(details)")
        }
    }
}
