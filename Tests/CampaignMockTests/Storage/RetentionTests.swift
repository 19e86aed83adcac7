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

    /// The history check passes over a device's first registration: a window of new devices alone has no
    /// history to trim, and a device first seen in an earlier window is checked in the window that
    /// registers it again.
    @Test func aDeviceIsCheckedForTooMuchHistoryWhenItRegistersAgain() throws {
        let live = try InProcessServer.withSDKApplications { $0.retentionSweepMilliseconds = 3_600_000 }
        try register(live, "once")
        for index in 0..<50 { try register(live, "new\(index)") }
        var policy = RetentionPolicy()
        policy.historyPerDevice = 2
        var sweep = try live.app.store.writeAndWait { [policy] in try $0.sweep(policy) }
        #expect(sweep.registrations == 0 && sweep.historyCheckedUpTo == 51)
        for round in 0..<3 { try register(live, "once", userKey: "again\(round)") }
        sweep = try live.app.store.writeAndWait { [policy] in try $0.sweep(policy, historyAfter: 51) }
        #expect(sweep.registrations == 2)
        #expect(try live.device("once")?.history?.map(\.userKey) == ["again1", "again2"])
        #expect(try counts(live).registrations == 52)
    }

    /// A sweep deletes its batch of the oldest devices and events beyond the caps, says whether it left
    /// more, and takes a part of its batch when told to (under a flood of writes).
    @Test func aSweepTakesItsBatchOfTheOldestAndSaysWhetherItLeftMore() throws {
        let live = try InProcessServer.withSDKApplications { $0.retentionSweepMilliseconds = 3_600_000 }
        // 2,000 devices registered at 1…2000 and 7,000 events, written straight into the store.
        try live.app.store.writeAndWait { transaction in
            try transaction.connection.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                INSERT INTO devices (application_id, registration_token, user_key, created_at, updated_at)
                SELECT (SELECT min(id) FROM applications), printf('token%d', i), 'u', i, i FROM n;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 7000)
                INSERT INTO tracking_events (received_at, raw_id, delivery_id, tag)
                SELECT i, printf('h1,d%d,1', i), printf('d%d', i), 1 FROM n;
                """)
        }
        var policy = RetentionPolicy()
        policy.devices = 1_000
        policy.events = 1_000
        func oldestDevice() throws -> Int64? {
            try live.app.store.read { try $0.connection.scalar("SELECT min(updated_at) FROM devices").integer }
        }

        // A tenth of the batch: 50 devices and 500 events, the oldest.
        var sweep = try live.app.store.writeAndWait { [policy] in try $0.sweep(policy, batch: 0.1) }
        #expect(sweep.devices == 50 && sweep.events == 500 && sweep.more)
        #expect(try oldestDevice() == 51)

        sweep = try live.app.store.writeAndWait { [policy] in try $0.sweep(policy) }
        #expect(sweep.devices == 500 && sweep.events == 5_000 && sweep.more)
        // 450 devices and 500 events left beyond the caps: fewer than a batch, so none left after.
        sweep = try live.app.store.writeAndWait { [policy] in try $0.sweep(policy) }
        #expect(sweep.devices == 450 && sweep.events == 500 && !sweep.more)

        sweep = try live.app.store.writeAndWait { [policy] in try $0.sweep(policy) }
        #expect(sweep.isEmpty && !sweep.more)
        let counted = try counts(live)
        #expect(counted.devices == 1_000 && counted.events == 1_000)
        #expect(try oldestDevice() == 1_001)
    }

    /// A sweep told that the store was settled at its newest writes leaves a store nobody wrote to since
    /// as it is; a write since, or a `days` bound, makes it sweep.
    @Test func aSettledStoreNobodyWroteToIsLeftAsItIs() throws {
        let live = try InProcessServer.withSDKApplications { $0.retentionSweepMilliseconds = 3_600_000 }
        for index in 0..<3 { try register(live, "s\(index)") }
        var policy = RetentionPolicy()
        policy.devices = 1
        let newest = try live.app.store.read {
            [try $0.connection.scalar("SELECT max(id) FROM registrations").integer ?? 0, 0]
        }
        var sweep = try live.app.store.writeAndWait { [policy] in try $0.sweep(policy, settledAt: newest) }
        #expect(sweep.isEmpty && sweep.newestWrites == newest)
        policy.days = 30
        sweep = try live.app.store.writeAndWait { [policy] in try $0.sweep(policy, settledAt: newest) }
        #expect(sweep.devices == 2)
        policy.days = 0
        try register(live, "s3")
        sweep = try live.app.store.writeAndWait { [policy] in try $0.sweep(policy, settledAt: newest) }
        #expect(sweep.devices == 1)
        #expect(try counts(live).devices == 1)
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

/// The sweeps' pace: while the writes keep the writer busy (a flood) they take a tenth of it in small
/// batches, while they leave it mostly idle half of it in whole ones; within the caps the next look comes before the store can
/// grow by more than a twentieth of a cap.
@Suite
struct RetentionPaceTests {
    let pace: RetentionPace = {
        var policy = RetentionPolicy()
        policy.devices = 5_000
        policy.events = 20_000
        return RetentionPace(policy: policy, longestWaitMilliseconds: 1_000)
    }()

    func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    @Test func thePressureIsHowBusyTheWritesKeptTheWriter() {
        // Measured: a flood of registrations (64 connections) kept the writer busy 92 % of the time, one
        // connection 53 %, a steady 750 requests/s a few percent.
        #expect(RetentionPace.busy(between: 1_000_000_000, idle: 80_000_000) == 0.92)
        #expect(RetentionPace.busy(between: 1_000_000_000, idle: 2_000_000_000) == 0, "a clock read late")
        #expect(RetentionPace.busy(between: 0, idle: 0) == 0)
        func pressure(_ busy: Double) -> Double { rounded(RetentionPace.pressure(busy: busy)) }
        #expect(pressure(0) == 0)
        #expect(pressure(0.05) == 0, "a steady load")
        #expect(pressure(0.2) == 0)
        #expect(pressure(0.5) == 0.5)
        #expect(pressure(0.8) == 1, "a flood")
        #expect(pressure(0.92) == 1)
    }

    @Test func theShareAndTheBatchShrinkWithThePressure() {
        #expect(rounded(RetentionPace.share(pressure: 0)) == 0.5)
        #expect(rounded(RetentionPace.share(pressure: 0.5)) == 0.3)
        #expect(rounded(RetentionPace.share(pressure: 1)) == 0.1)
        #expect(rounded(RetentionPace.batch(pressure: 0)) == 1)
        #expect(rounded(RetentionPace.batch(pressure: 0.5)) == 0.55)
        #expect(rounded(RetentionPace.batch(pressure: 1)) == 0.1)
    }

    @Test func thePauseAfterASweepGivesItItsShare() {
        // A sweep of 10 ms: nine times as long after it at a tenth, as long at a half.
        #expect(pace.pause(after: 10_000_000, share: 0.1) == 90)
        #expect(pace.pause(after: 10_000_000, share: 0.3) == 23)
        #expect(pace.pause(after: 10_000_000, share: 0.5) == 10)
        #expect(pace.pause(after: 200_000_000, share: 0.1) == 1_000, "the longest wait")
        #expect(pace.pause(after: 100_000, share: 0.5) == 1, "1 ms at least")
    }

    @Test func withinTheCapsTheNextLookComesBeforeAGrowthOfATwentiethOfACap() {
        func wait(registrations: Int64, events: Int64, milliseconds: UInt64) -> Int {
            pace.wait(
                within: .init(registrations: registrations, events: events, nanoseconds: milliseconds * 1_000_000))
        }
        // 250 registrations a second: 250 devices (5 % of 5,000) a second at most.
        #expect(wait(registrations: 250, events: 0, milliseconds: 1_000) == 1_000)
        #expect(wait(registrations: 250, events: 0, milliseconds: 500) == 500)
        // 2,000 events a second: 1,000 (5 % of 20,000) in half a second.
        #expect(wait(registrations: 250, events: 2_000, milliseconds: 1_000) == 500)
        // 30,000 registrations a second: 10 ms at least; nothing written: the longest wait.
        #expect(wait(registrations: 30_000, events: 0, milliseconds: 1_000) == 10)
        #expect(wait(registrations: 0, events: 0, milliseconds: 1_000) == 1_000)
        // A bound turned off does not pace the looks.
        var unbounded = pace
        unbounded.policy.devices = 0
        #expect(unbounded.wait(within: .init(registrations: 30_000, events: 0, nanoseconds: 1_000_000_000)) == 1_000)
    }
}
