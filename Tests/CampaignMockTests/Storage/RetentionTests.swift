import CampaignMockSystem
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockModel
@testable import CampaignMockStorage

/// A long-lived instance stops growing: the sweep deletes what `--retain-*` no longer keeps.
@Suite(.timeLimit(.minutes(2)))
struct RetentionTests {
    func counts(_ live: some TestServer) throws -> (events: Int64, devices: Int64, registrations: Int64) {
        try live.app.store.read { reader in
            (
                try reader.connection.scalar("SELECT count(*) FROM tracking_events").integer ?? -1,
                try reader.connection.scalar("SELECT count(*) FROM devices").integer ?? -1,
                try reader.connection.scalar("SELECT count(*) FROM registrations").integer ?? -1
            )
        }
    }

    func register(_ live: some TestServer, _ token: String, userKey: String = "u") throws {
        let body = "registrationToken=\(token)&mobileAppUuid=integrationKey&userKey=\(userKey)"
        #expect(try live.register(.ios, body).status == 200)
    }

    @Test func theSweeperKeepsTheNewestEventsAndTheDevicesSeenLast() throws {
        let live = try InProcessServer.withSDKApplications { configuration in
            configuration.retention.events = 100
            configuration.retention.devices = 40
            configuration.retentionSweepMilliseconds = 50
        }
        for index in 0..<120 { try register(live, "t\(index)") }
        try register(live, "t0", userKey: "back")  // seen again: now among the newest
        for index in 0..<1000 { _ = try live.request("GET", "/r/?id=h1,d\(index),1") }
        for _ in 0..<400 where try counts(live).events > 100 || counts(live).devices > 40 { usleep(10_000) }
        #expect(try counts(live).events == 100)
        #expect(try counts(live).devices == 40)
        let events = try live.json("GET", "/_mock/events?limit=1000").object["events"] as? [[String: Any]] ?? []
        #expect(events.map { $0["deliveryId"] as? String } == (900..<1000).reversed().map { "d\($0)" })
        let devices = try live.json("GET", "/_mock/devices?limit=1000&after=0").object["devices"] as? [[String: Any]]
        let kept = Set(devices?.compactMap { $0["registrationToken"] as? String } ?? [])
        #expect(kept == Set(["t0"] + (81..<120).map { "t\($0)" }))
        // Every history row of a deleted device went with it. (t0 keeps two rows unless a sweep took it
        // before it came back, and it came back as a new device.)
        let t0 = try #require(try live.device("t0")?.history?.count)
        #expect(try counts(live).registrations == Int64(39 + t0))
    }

    @Test func daysAndHistoryPerDevice() throws {
        let live = try InProcessServer.withSDKApplications { $0.retentionSweepMilliseconds = 3_600_000 }
        for round in 0..<130 { try register(live, "busy", userKey: "u\(round)") }
        try register(live, "quiet")
        for index in 0..<10 { _ = try live.request("GET", "/r/?id=h1,d\(index),1") }
        var policy = RetentionPolicy()
        policy.historyPerDevice = 100
        var sweep = try live.app.store.writeAndWait { [policy] in try $0.sweep(policy) }
        #expect(sweep.registrations == 30)
        // The next sweep looks only at devices registered since: "busy" again, "quiet" not.
        for round in 130..<135 { try register(live, "busy", userKey: "u\(round)") }
        let checked = sweep.historyCheckedUpTo
        sweep = try live.app.store.writeAndWait { [policy] in try $0.sweep(policy, historyAfter: checked) }
        #expect(sweep.registrations == 5)
        #expect(sweep.historyCheckedUpTo == checked + 5)
        let unchanged = sweep.historyCheckedUpTo
        sweep = try live.app.store.writeAndWait { [policy] in try $0.sweep(policy, historyAfter: unchanged) }
        #expect(sweep.isEmpty && sweep.historyCheckedUpTo == unchanged)
        let busy = try #require(try live.device("busy"))
        #expect(busy.history?.count == 100)
        #expect(busy.history?.last?.userKey == "u134", "the latest registration stays")

        // Two days later, with --retain-days 1: nothing is young enough.
        policy.days = 1
        let later = Clock.wallClockMicroseconds() + 2 * 86_400_000_000
        sweep = try live.app.store.writeAndWait { [policy] in try $0.sweep(policy, now: later) }
        #expect(sweep.events == 10)
        #expect(sweep.devices == 2)
        #expect(try counts(live) == (0, 0, 0))
        // With the default policy and a young store, a sweep deletes nothing.
        #expect(try live.app.store.writeAndWait { try $0.sweep(RetentionPolicy()) }.isEmpty)
    }

    @Test func theOverviewShowsTheRetention() throws {
        let live = try InProcessServer.withSDKApplications { $0.retention.days = 30 }
        let info = try live.json("GET", "/_mock/info").object
        let retention = try #require(info["retention"] as? [String: Any])
        #expect(retention["days"] as? Int == 30)
        #expect(retention["events"] as? Int == 1_000_000)
        #expect(retention["devices"] as? Int == 100_000)
        #expect(retention["journal"] as? Int == 10_000)
    }
}

/// A reset of everything gives the file's space back; a partial one leaves it for new rows.
@Suite(.timeLimit(.minutes(2)))
struct ResetSpaceTests {
    @Test func aResetOfEverythingShrinksTheFile() throws {
        let live = try InProcessServer()
        let file = try #require(live.app.store.path)
        // What the store takes on disk: the database file and its WAL.
        func size() -> Int {
            [file, file + "-wal"].reduce(0) { total, path in
                let attributes = try? FileManager.default.attributesOfItem(atPath: path)
                return total + (attributes?[.size] as? Int ?? 0)
            }
        }
        // 200,000 events (tens of MB), written straight into the store.
        try live.app.store.writeAndWait { transaction in
            try transaction.connection.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
                INSERT INTO tracking_events (received_at, raw_id, message_hex, message_value, delivery_id, tag)
                SELECT i, printf('h%x,d%d,1', i, i), printf('%x', i), i, printf('d%d', i), 1 FROM n;
                """)
        }
        let full = size()
        #expect(full > 8 << 20)

        #expect(try live.request("POST", "/_mock/reset?only=events").status == 200)
        #expect(size() >= full, "a partial reset keeps the space for new rows")

        #expect(try live.request("POST", "/_mock/reset").status == 200)
        let emptied = size()
        #expect(emptied < 1 << 20, "\(emptied) bytes after a reset of everything")
        #expect(try live.json("GET", "/_mock/events").object["total"] as? Int == 0)
    }
}
