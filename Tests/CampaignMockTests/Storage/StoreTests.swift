import CampaignMockJournal
import CampaignMockTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import CampaignMockModel
@testable import CampaignMockStorage

private func record(_ target: String) -> JournalRecord {
    JournalRecord(
        receivedAtMicros: 1, method: "GET", target: target, endpoint: "test", headersJSON: "[]", body: [],
        status: 200, reason: nil, appKey: nil, durationMicros: 0, remoteAddress: nil)
}

private func count(_ sql: String, in path: String) throws -> Int64 {
    try SQLiteConnection(path: path).scalar(sql).integer ?? -1
}

@Suite("SQLite store on temp files", .timeLimit(.minutes(2)))
struct StoreTests {
    @Test func migratesAnEmptyDatabaseAndReopensWithoutRerunning() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        let first = try Store(path: path)
        first.close()
        let applied = try SQLiteConnection(path: path).query("SELECT name FROM schema_migrations ORDER BY name")
        #expect(applied.compactMap { $0[0].text } == Schema.migrations.map(\.name))

        let connection = try SQLiteConnection(path: path)
        #expect(try SQLiteMigrator.migrate(connection, Schema.migrations).isEmpty)
        #expect(try connection.scalar("PRAGMA journal_mode").text == "wal")
    }

    @Test func movesTheParamsOfAnEarlierSchemaIntoTheirDevices() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        let earlier = Schema.migrations.prefix { $0.name != "0009-device-params-inline" }
        do {
            let connection = try SQLiteConnection(path: path)
            _ = try SQLiteMigrator.migrate(connection, Array(earlier))
            try connection.execute(
                """
                INSERT INTO applications (id, name, platform, integration_key, created_at) VALUES (1, 'A', 'android', 'k', 0);
                INSERT INTO devices (id, application_id, registration_token, user_key, created_at, updated_at)
                    VALUES (1, 1, 'with-params', 'u1', 0, 0), (2, 1, 'without', 'u2', 0, 0);
                INSERT INTO device_params (device_id, name, type, value) VALUES
                    (1, 'zone', 'string', 'eu "west"'), (1, 'age', 'integer', '42');
                """)
        }
        let store = try Store(path: path)
        defer { store.close() }
        let withParams = try store.read { try $0.devices(token: "with-params", applicationKey: nil) }
        #expect(
            withParams.first?.params == [
                AdditionalParam(name: "age", value: "42", kind: .integer),
                AdditionalParam(name: "zone", value: "eu \"west\"", kind: .string),
            ])
        let without = try store.read { try $0.devices(token: "without", applicationKey: nil) }
        #expect(without.first?.params == [])
        let filtered = try store.read {
            var filter = DeviceFilter()
            filter.params = [(name: "zone", value: "eu \"west\"")]
            return try $0.devices(matching: filter, .oldestFirst(after: 0), limit: 10)
        }
        #expect(filtered.devices.map(\.registrationToken) == ["with-params"])
        #expect(try count("SELECT count(*) FROM sqlite_master WHERE name = 'device_params'", in: path) == 0)
    }

    @Test func refusesADatabaseFromANewerVersion() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        try Store(path: path).close()
        try SQLiteConnection(path: path).query(
            "INSERT INTO schema_migrations (name, applied_at) VALUES ('9999-from-the-future', 0)")
        #expect(throws: StoreError.newerSchema(migration: "9999-from-the-future")) { try Store(path: path) }
    }

    @Test func sixtyFourConcurrentWritersLoseNothingAndDuplicateNothing() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        let store = try Store(path: path, journalLimit: 100_000)
        let group = DispatchGroup()
        let failures = LockedCounter()
        for writer in 0..<64 {
            for row in 0..<1000 {
                group.enter()
                store.write {
                    $0.appendJournal(record("/\(writer)/\(row)"))
                } completion: { result in
                    if case .failure = result { failures.increment() }
                    group.leave()
                }
            }
        }
        // The same load from 64 threads at once, each waiting for its own commits.
        DispatchQueue.concurrentPerform(iterations: 64) { writer in
            for row in 0..<10 {
                do {
                    try store.writeAndWait { $0.appendJournal(record("/sync/\(writer)/\(row)")) }
                } catch {
                    failures.increment()
                }
            }
        }
        group.wait()
        store.close()
        #expect(failures.value == 0)
        // Read back from the journal's files by a store opened again.
        let reopened = try Store(path: path, journalLimit: 100_000)
        defer { reopened.close() }
        let targets = try reopened.journalTargets()
        #expect(targets.count == 64_640)
        #expect(Set(targets).count == 64_640)
        #expect(targets.filter { !$0.hasPrefix("/sync/") }.count == 64_000)
    }

    /// A queue longer than a batch (the writer takes 2,048 jobs at a time) is committed a batch at a time, in
    /// the order it came: the writer is held inside one job while 5,000 more are queued behind it.
    @Test func aQueueLongerThanABatchIsCommittedInTheOrderItCame() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        let store = try Store(path: path, journalLimit: 100_000)
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        store.write { _ in
            held.signal()
            release.wait()
        } completion: { _ in
        }
        held.wait()
        let batches = Mutex<[Int]>([])
        store.sink.subscribe { changes in batches.withLock { $0.append(changes.count) } }
        let group = DispatchGroup()
        for row in 0..<5000 {
            group.enter()
            store.write {
                $0.appendJournal(record("/\(row)"))
            } completion: { _ in
                group.leave()
            }
        }
        release.signal()
        group.wait()
        store.close()
        #expect(batches.withLock { $0 } == [2048, 2048, 904])
        let reopened = try Store(path: path, journalLimit: 100_000)
        defer { reopened.close() }
        #expect(try reopened.journalTargets() == (0..<5000).map { "/\($0)" })
    }

    @Test func aCommittedWriteIsVisibleToANewConnection() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        let store = try Store(path: path)
        defer { store.close() }
        try store.writeAndWait { try $0.upsertApplication(Application(name: "V", platform: .ios, integrationKey: "v")) }
        #expect(try count("SELECT count(*) FROM applications WHERE integration_key = 'v'", in: path) == 1)
    }

    @Test func aFailingWriteRollsBackAloneAndTheOthersCommit() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        let store = try Store(path: path)
        let published = Mutex<[String]>([])
        store.sink.subscribe { changes in published.withLock { $0 += changes.map(Self.target) } }
        let second = Mutex<[String]>([])
        store.sink.subscribe { changes in second.withLock { $0 += changes.map(Self.target) } }
        let group = DispatchGroup()
        let outcomes = Outcomes()
        // Hold the writer in a first job so the ten below queue up and commit as one batch: the failing
        // one must make that batch fall back to a savepoint per job, not fail its neighbours.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        group.enter()
        store.write { _ in
            holding.signal()
            release.wait()
        } completion: { _ in
            group.leave()
        }
        holding.wait()
        for index in 0..<10 {
            group.enter()
            store.write { transaction in
                transaction.appendJournal(record("/job/\(index)"))
                if index == 4 { throw StoreError.closed }
            } completion: { result in
                outcomes.append(index, result)
                group.leave()
            }
        }
        release.signal()
        group.wait()
        store.close()
        #expect(outcomes.failed == [4])
        let reopened = try Store(path: path)
        defer { reopened.close() }
        #expect(try reopened.journalTargets() == [0, 1, 2, 3, 5, 6, 7, 8, 9].map { "/job/\($0)" })
        // Each subscriber gets the committed rows once each, in order, and never the rolled-back one.
        #expect(published.withLock { $0 } == [0, 1, 2, 3, 5, 6, 7, 8, 9].map { "/job/\($0)" })
        #expect(second.withLock { $0 } == published.withLock { $0 })
    }

    /// What a change handed to the event stream says, for comparing (journal entries only here).
    private static func target(_ change: CommittedChange) -> String {
        if case .request(_, let record) = change { record.target } else { "\(change)" }
    }

    /// The stream and the waiters get the registration the writer made, not one read back: it must be the
    /// same value a read gives, for a new device, a changed one and an unchanged one.
    @Test func aRegistrationAsWrittenIsTheRegistrationAsRead() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.path + "/db.sqlite3")
        defer { store.close() }
        try store.writeAndWait {
            try $0.insertApplication(Application(name: "A", platform: .android, integrationKey: "k"))
        }
        let application = try #require(try store.application(key: "k"))
        var request = RegistrationRequest(
            registrationToken: "t1", integrationKey: "k", userKey: "jane@example.com",
            device: DeviceFields(deviceModel: "Pixel 8", osName: "android", osVersion: ""),
            params: [
                AdditionalParam(name: "zeta", value: "1"), AdditionalParam(name: "alpha", value: "x\u{1}y"),
                AdditionalParam(name: "mid", value: "true"),
            ])
        var written: [RegistrationNotice] = []
        for change in 0..<3 {
            if change == 2 { request.userKey = "john@example.com" }
            let sent = request
            written.append(
                try store.writeAndWait {
                    try $0.register(sent, application: application, receivedAt: 1_795_424_400_123_456 + Int64(change))
                })
        }
        let read = try store.read {
            try $0.registrations(after: 0, since: nil, matching: DeviceFilter(), limit: 10)
        }
        #expect(written.map(\.changes) == [["new"], ["unchanged"], ["userKey"]])
        #expect(written == read)
        // Its time also as an integer, for the checks, which the JSON leaves out.
        #expect(
            written.map(\.receivedAtMicroseconds) == [
                1_795_424_400_123_456, 1_795_424_400_123_457, 1_795_424_400_123_458,
            ])
        let json = String(decoding: try JSONEncoder().encode(written[0]), as: UTF8.self)
        #expect(json.contains(#""receivedAt":"2026-11-23T09:00:00.123Z""#) && !json.contains("Microseconds"))
    }

    @Test func handsEveryCommittedRowOnButNotAnImportsNorAfterUnsubscribing() throws {
        let store = try Store(path: nil)
        defer { store.close() }
        let published = Mutex<[String]>([])
        try store.writeAndWait { $0.appendJournal(record("/before")) }
        let id = store.sink.subscribe { changes in published.withLock { $0 += changes.map(Self.target) } }
        try store.writeAndWait { $0.appendJournal(record("/during")) }
        try store.writeAndWait { transaction in
            transaction.withoutRecording { transaction.appendJournal(record("/imported")) }
            transaction.appendJournal(record("/after-import"))
        }
        store.sink.unsubscribe(id)
        try store.writeAndWait { $0.appendJournal(record("/after")) }
        #expect(published.withLock { $0 } == ["/during", "/after-import"])
    }

    /// A job's completion (a request's answer) comes after every subscriber got its batch: whoever got an
    /// answer finds the change already handed on.
    @Test func subscribersGetABatchBeforeItsCompletions() throws {
        let store = try Store(path: nil)
        defer { store.close() }
        let published = Mutex<[String]>([])
        store.sink.subscribe { changes in published.withLock { $0 += changes.map(Self.target) } }
        let seenByCompletion = Mutex<[String]?>(nil)
        let done = DispatchSemaphore(value: 0)
        store.write {
            $0.appendJournal(record("/answered"))
        } completion: { _ in
            seenByCompletion.withLock { $0 = published.withLock { $0 } }
            done.signal()
        }
        done.wait()
        #expect(seenByCompletion.withLock { $0 } == ["/answered"])
    }

    /// A job that throws changes nothing and hands nothing on, also when it is alone in its batch.
    @Test func aFailedJobHandsNothingOn() throws {
        let store = try Store(path: nil)
        defer { store.close() }
        let published = Mutex<[String]>([])
        store.sink.subscribe { changes in published.withLock { $0 += changes.map(Self.target) } }
        #expect(throws: StoreError.closed) {
            try store.writeAndWait { transaction in
                transaction.appendJournal(record("/rolled-back"))
                throw StoreError.closed
            }
        }
        try store.writeAndWait { $0.appendJournal(record("/kept")) }
        #expect(published.withLock { $0 } == ["/kept"])
    }

    /// The stream gets a tracking hit from what the writer wrote, with the device its message was issued
    /// for: the same event a read gives, linked or not.
    /// A provider's answer is kept with its push, only while its message is there, and goes with it.
    @Test func aSendIsStoredWithItsPushAndRemovedWithIt() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        let store = try Store(path: path)
        defer { store.close() }
        try store.writeAndWait { try $0.insertApplication(Application(name: "A", platform: .ios, integrationKey: "k")) }
        let application = try #require(try store.application(key: "k"))
        let request = RegistrationRequest(
            registrationToken: "tok", integrationKey: "k", userKey: "", device: DeviceFields(), params: [])
        let push = try store.writeAndWait { transaction in
            try transaction.register(request, application: application, receivedAt: 1)
            return try transaction.createPush(PushRequest(token: "tok", title: "Sale"), style: .v7) {
                _, device, messageID, deliveryID in
                ComposedMessage(
                    registrationToken: device.token, platform: device.platform, app: device.app, messageId: messageID,
                    deliveryId: deliveryID, tracking: .init(receive: "/r/1", open: "/r/2"))
            }
        }
        #expect(push.sends == [])
        let sent = PushSend(
            pushId: push.id, messageId: push.messages[0].messageId, registrationToken: "tok", app: "k",
            provider: .apns, destination: "sandbox", sentAt: "2026-11-25T12:00:00.000Z", outcome: .refused,
            status: 410, reason: "Unregistered", explanation: "gone")
        var other = sent
        other.messageId = "999"
        let stranger = other
        try store.writeAndWait { transaction in
            try transaction.recordSend(sent)
            try transaction.recordSend(stranger)  // no such message in this push: not kept
        }
        #expect(try store.read { try $0.push(id: push.id) }?.sends == [sent])
        _ = try store.writeAndWait { try $0.reset([.events], applicationKey: nil) }
        #expect(try store.read { try $0.push(id: push.id) } == nil)
        #expect(try count("SELECT count(*) FROM push_sends", in: path) == 0)
    }

    @Test func aHitAsWrittenIsTheHitAsRead() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.path + "/db.sqlite3")
        defer { store.close() }
        try store.writeAndWait { try $0.insertApplication(Application(name: "A", platform: .ios, integrationKey: "k")) }
        let application = try #require(try store.application(key: "k"))
        let request = RegistrationRequest(
            registrationToken: "tok", integrationKey: "k", userKey: "", device: DeviceFields(), params: [])
        try store.writeAndWait { transaction in
            try transaction.register(request, application: application, receivedAt: 1)
            try transaction.insertMessage(
                messageID: "12345", deliveryID: "d7",
                deviceID: try transaction.importedDeviceID(
                    applicationID: application.id, token: "tok"), applicationID: application.id)
        }
        let published = Mutex<[TrackingEvent]>([])
        store.sink.subscribe { changes in
            published.withLock { events in
                for case .hit(let id, let hit) in changes { events.append(TrackingEvent(id: id, hit: hit)) }
            }
        }
        for raw in ["h3039,d7,1", "h3039,d7,2", "hffff,d9,1"] {  // 0x3039 is 12345; the last is no message's
            try store.writeAndWait {
                try $0.recordHit(
                    try TrackingID(parsing: raw), userAgent: "ua", remoteAddress: "::1",
                    receivedAt: 1_795_424_400_123_456)
            }
        }
        let read = try store.read { try $0.events(matching: EventFilter(), after: 0, limit: 10).events }
        let written = published.withLock { $0 }
        #expect(written.map(\.linked?.registrationToken) == ["tok", "tok", nil])
        #expect(written == read)
    }

    /// A store in `directory` with application `k` and its device `tok`, registered at 1.
    func storeWithADevice(in directory: TemporaryDirectory) throws -> Store {
        let store = try Store(path: directory.path + "/db.sqlite3")
        try store.writeAndWait { try $0.insertApplication(Application(name: "A", platform: .ios, integrationKey: "k")) }
        let application = try #require(try store.application(key: "k"))
        let request = RegistrationRequest(
            registrationToken: "tok", integrationKey: "k", userKey: "", device: DeviceFields(), params: [])
        _ = try store.writeAndWait { try $0.register(request, application: application, receivedAt: 1) }
        return store
    }

    /// The writer counts the time it waits for work, which the retention sweeps read as how busy the writes
    /// keep it: the count grows while nothing is queued and stands still while a job holds the writer.
    @Test func theWriterCountsTheTimeItWaitsForWork() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.path + "/db.sqlite3")
        defer { store.close() }
        let idleAtStart = store.writerIdleNanoseconds
        usleep(100_000)
        try store.writeAndWait { _ in }  // the wait is counted once the writer wakes
        let idle = store.writerIdleNanoseconds - idleAtStart
        #expect(idle >= 80_000_000, "idle \(idle) ns over 100 ms")
        let beforeBusy = store.writerIdleNanoseconds
        _ = try store.writeAndWait { _ in usleep(100_000) }
        #expect(store.writerIdleNanoseconds - beforeBusy < 50_000_000, "busy time is not idle time")
    }

    /// A read neither waits for the writer nor commits: with the writer held inside a batch, a read answers
    /// at once, and sees every write answered before (each was committed before its answer).
    @Test func aReadDoesNotWaitForABusyWriter() throws {
        let directory = TemporaryDirectory()
        let store = try storeWithADevice(in: directory)
        defer { store.close() }
        try store.writeAndWait {
            try $0.recordHit(try TrackingID(parsing: "h1,d1,1"), userAgent: nil, remoteAddress: nil, receivedAt: 2)
        }
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        store.write(
            { _ in
                entered.signal()
                release.wait()
            }, completion: { _ in })
        entered.wait()
        // Should the read wait for the writer after all, the writer is let go after 10 s and the test fails.
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) { release.signal() }
        let started = ContinuousClock.now
        let seen = try store.read { reader in
            (
                try reader.devices(matching: DeviceFilter(), .newestFirst(before: nil), limit: 10).devices.count,
                try reader.events(matching: EventFilter(), after: 0, limit: 10).events.count
            )
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        release.signal()
        #expect(seen == (1, 1))
    }

    /// A hit whose message a read looked up already (for a fault rule, `--strict-tracking`) is written with
    /// what that read found: the writer does not look it up again.
    @Test func aHitLooksItsMessageUpOnce() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.path + "/db.sqlite3")
        defer { store.close() }
        try store.writeAndWait { transaction in
            _ = try transaction.insertMessage(messageID: "12345", deliveryID: "d7", deviceID: nil, applicationID: nil)
        }
        let id = try TrackingID(parsing: "h3039,d7,1")
        let found = try #require(try store.read { try $0.issuedMessage(for: id) })
        // Told "no message" by its read, the writer links nothing, though one exists: it did not look.
        try store.writeAndWait {
            try $0.recordHit(id, userAgent: nil, remoteAddress: nil, receivedAt: 1, lookedUp: .some(nil))
        }
        try store.writeAndWait {
            try $0.recordHit(id, userAgent: nil, remoteAddress: nil, receivedAt: 2, lookedUp: .some(found))
        }
        try store.writeAndWait { try $0.recordHit(id, userAgent: nil, remoteAddress: nil, receivedAt: 3) }
        let events = try store.read { try $0.events(matching: EventFilter(), after: 0, limit: 10).events }
        #expect(events.sorted { $0.id < $1.id }.map { $0.linked?.messageId } == [nil, "12345", "12345"])
    }

    /// The device of a message a read found is removed before the hit's write: the hit is stored, linked to
    /// the message as it is now (to no device), not refused by a foreign key.
    @Test func aHitWhoseDeviceWentAfterItsLookupIsStoredAsTheMessageIsNow() throws {
        let directory = TemporaryDirectory()
        let store = try storeWithADevice(in: directory)
        defer { store.close() }
        try store.writeAndWait { transaction in
            let ids = try #require(
                try transaction.connection.query(
                    "SELECT id, application_id FROM devices WHERE registration_token = 'tok'"
                )
                .first)
            _ = try transaction.insertMessage(
                messageID: "12345", deliveryID: "d7", deviceID: try ids["id"].integer,
                applicationID: try ids["application_id"].integer)
        }
        let id = try TrackingID(parsing: "h3039,d7,1")
        let found = try #require(try store.read { try $0.issuedMessage(for: id) })
        #expect(found.deviceID != nil)
        _ = try store.writeAndWait { try $0.deleteDevice(token: "tok", applicationKey: "k") }
        try store.writeAndWait {
            try $0.recordHit(id, userAgent: nil, remoteAddress: nil, receivedAt: 2, lookedUp: .some(found))
        }
        let events = try store.read { try $0.events(matching: EventFilter(), after: 0, limit: 10).events }
        #expect(events.map { $0.linked?.messageId } == ["12345"])
        #expect(events.first?.linked?.registrationToken == nil)
    }

    @Test func writesAfterCloseFailWithAReason() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.path + "/db.sqlite3")
        store.close()
        #expect(throws: StoreError.closed) { try store.writeAndWait { $0.appendJournal(record("/late")) } }
    }

    @Test func inMemoryStoreReadsItsWrites() throws {
        let store = try Store(path: nil)
        defer { store.close() }
        try store.writeAndWait { $0.appendJournal(record("/memory")) }
        #expect(
            try store.read { try $0.journalPage(after: 0, limit: 10) }.requests.map(\.target) == [
                "/memory"
            ])
    }

    @Test func trimsTheJournalToItsLimitAndCountsTheDropped() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.path + "/db.sqlite3", journalLimit: 5)
        defer { store.close() }
        for index in 0..<8 {
            try store.writeAndWait { $0.appendJournal(record("/\(index)")) }
        }
        let page = try store.read { try $0.journalPage(after: 0, limit: 100) }
        #expect(page.requests.map(\.target) == ["/3", "/4", "/5", "/6", "/7"])
        #expect(page.dropped == 3)
    }

    /// A job that fails after appending, and a reset of one application's entries, must not leave the
    /// journal's count wrong (it would trim too many or too few).
    @Test func trimsToTheLimitAfterAFailedJobAndAResetOfOneApplication() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.path + "/db.sqlite3", journalLimit: 5)
        defer { store.close() }
        func append(_ target: String, app: String? = nil) throws {
            var entry = record(target)
            entry.appKey = app
            let appended = entry
            try store.writeAndWait { $0.appendJournal(appended) }
        }
        try store.writeAndWait {
            try $0.insertApplication(Application(name: "K", platform: .ios, integrationKey: "k"))
        }
        for index in 0..<4 { try append("/\(index)", app: index == 1 ? "k" : nil) }
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.writeAndWait { transaction in
                transaction.appendJournal(record("/rolled-back"))
                throw Refused()
            }
        }
        try append("/4")
        try append("/5")  // six rows: /0 goes
        var page = try store.read { try $0.journalPage(after: 0, limit: 100) }
        #expect(page.requests.map(\.target) == ["/1", "/2", "/3", "/4", "/5"])
        #expect(page.dropped == 1)

        _ = try store.writeAndWait { try $0.reset([.journal], applicationKey: "k") }  // /1 goes
        try append("/6")  // five rows again: nothing goes
        try append("/7")  // six: /2 goes
        page = try store.read { try $0.journalPage(after: 0, limit: 100) }
        #expect(page.requests.map(\.target) == ["/3", "/4", "/5", "/6", "/7"])
        #expect(page.dropped == 2)
    }

    /// The writer never checkpoints inside a commit; the checkpoint thread copies the WAL into the
    /// database file once it grows by `CheckpointPolicy.pagesBeforeCheckpoint`, while the store stays open (without that thread the
    /// file would not grow until close: the writer's hook replaced SQLite's automatic checkpoint).
    @Test func theCheckpointThreadCopiesTheWALIntoTheDatabaseFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        let store = try Store(path: path)
        defer { store.close() }
        func size() -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        let before = size()
        for _ in 0..<60 {
            try store.writeAndWait { transaction in
                for _ in 0..<10 { try Self.writeFiller(8192, in: transaction) }
            }
        }
        // 600 rows of 8 KB, about 4.9 MB: three times the pages after which a checkpoint is due (400, 1.6 MB).
        // What came after the last copy may stay in the WAL: up to those 400 pages.
        let copied = 4_900_000 - CheckpointPolicy().pagesBeforeCheckpoint * 4096
        let deadline = Date().addingTimeInterval(20)
        while size() < before + copied && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(size() >= before + copied)
        #expect(try store.read { try $0.connection.integer("SELECT count(*) FROM filler") } == 600)
    }

    /// Under a writer that is never idle the checkpoint thread never copies the whole WAL before the next
    /// transaction begins, and SQLite starts a WAL again from its beginning only then: without the
    /// writer finishing the copy itself, the WAL file grew by every page written (535 MB in 6 s of wrk).
    @Test func theWALStaysBoundedUnderAWriterThatIsNeverIdle() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        let policy = CheckpointPolicy(pagesBeforeCheckpoint: 20, pagesBeforeRestart: 100)
        let store = try Store(path: path, checkpoints: policy)
        defer { store.close() }
        let written = DispatchGroup()
        let inFlight = DispatchSemaphore(value: 16)
        // 20,000 rows of 2 KB, 16 at a time (as 16 clients would): small batches back to back, some 120 MB
        // of WAL frames in all. The WAL stays near the policy's 100 pages plus what the writer wrote while
        // a copy ran (under 2 MB alone; 17.5 MB once with the whole suite running, the copying thread
        // starved): a bound of 32 MB leaves room for a slow or busy machine.
        let rows = 20_000
        for _ in 0..<rows {
            inFlight.wait()
            written.enter()
            store.write {
                try Self.writeFiller(2048, in: $0)
            } completion: { _ in
                inFlight.signal()
                written.leave()
            }
        }
        written.wait()
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(wal > 0)
        #expect(wal < 32_000_000)
        #expect(try store.read { try $0.connection.integer("SELECT count(*) FROM filler") } == Int64(rows))
    }

    /// The ceiling does not wait for the checkpoint thread: at twice the restart length the writer takes
    /// over the copy even when that thread never managed one (here: a WAL with nothing in it to copy).
    @Test func atTwiceTheRestartLengthTheWriterFinishesTheCopyItself() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        _ = try SQLiteConnection(path: path)
        let checkpointer = try Checkpointer(
            path: path, policy: CheckpointPolicy(pagesBeforeCheckpoint: 20, pagesBeforeRestart: 100))
        defer { checkpointer.close() }
        checkpointer.walHas(pages: 150)
        #expect(!checkpointer.writerFinishesTheCopy, "past the restart length the copying thread tries first")
        checkpointer.walHas(pages: 200)
        #expect(checkpointer.writerFinishesTheCopy)
        checkpointer.walHas(pages: 3)  // the WAL started again
        #expect(!checkpointer.writerFinishesTheCopy)
    }

    /// A row of `bytes` bytes in a table of its own, to make WAL frames (the journal is not in SQLite).
    private static func writeFiller(_ bytes: Int, in transaction: StoreTransaction) throws {
        try transaction.connection.execute("CREATE TABLE IF NOT EXISTS filler (body BLOB NOT NULL)")
        try transaction.connection.query(
            "INSERT INTO filler (body) VALUES (?)", [[UInt8](repeating: UInt8(ascii: "a"), count: bytes)])
    }

    /// Journal ids only grow: after the journal is emptied (all of it, or one application's entries), and
    /// after a restart that finds it empty, the next entry gets an id above every id given before, so a
    /// cursor or a `wait` taken earlier still sees it.
    @Test func journalIDsKeepGrowingAcrossClearsResetsAndRestarts() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        func append(_ store: Store, _ target: String, app: String? = nil) throws -> Int64 {
            var entry = record(target)
            entry.appKey = app
            let appended = entry
            try store.writeAndWait { $0.appendJournal(appended) }
            return try store.read { $0.lastJournalID() }
        }
        var store = try Store(path: path)
        #expect(try append(store, "/1") == 1)
        #expect(try append(store, "/2", app: "a") == 2)
        _ = try store.writeAndWait { $0.clearJournal() }
        #expect(try append(store, "/3", app: "a") == 3)
        _ = try store.writeAndWait { try $0.reset([.journal], applicationKey: nil) }
        store.close()

        store = try Store(path: path)
        defer { store.close() }
        #expect(try store.read { $0.journalCount() } == 0)
        #expect(try store.read { $0.lastJournalID() } == 3)  // empty, and the next id is 4
        #expect(try append(store, "/4") == 4)
        let page = try store.read { try $0.journalPage(after: 3, limit: 10) }
        #expect(page.requests.map(\.target) == ["/4"])
    }

    /// A database made before journal ids came from the writer (AUTOINCREMENT) keeps its entries and its
    /// highest id ever given, even when its journal was emptied; migration 0013 moves them from the table
    /// into the journal's files, once.
    @Test func migratingAnAutoincrementJournalKeepsItsHighestID() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        do {  // the connection closes at the end of the block
            let old = try Self.oldJournalDatabase(path, migrations: 9, targets: ["/1", "/2", "/3"])
            try old.query("DELETE FROM request_journal WHERE target = '/3'")  // AUTOINCREMENT still says 3
        }

        var store = try Store(path: path)
        let before = try store.read { try $0.journalPage(after: 0, limit: 10) }
        #expect(before.requests.map(\.id) == [1, 2])
        #expect(before.requests.map(\.target) == ["/1", "/2"])
        #expect(try count("SELECT count(*) FROM sqlite_schema WHERE name = 'request_journal'", in: path) == 0)
        try store.writeAndWait { $0.appendJournal(record("/4")) }
        store.close()
        store = try Store(path: path)
        defer { store.close() }
        #expect(try store.journalTargets() == ["/1", "/2", "/4"])
        #expect(try store.read { try $0.journalPage(after: 2, limit: 10) }.requests.map(\.id) == [4])
    }

    /// A start that stopped after the import began the journal's file but before it wrote the entries
    /// (the table is still there, the migration had not committed) imports them again.
    @Test func anImportThatStoppedBeforeItsEntriesRunsAgain() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        _ = try Self.oldJournalDatabase(path, migrations: 12, targets: ["/1", "/2"])  // closed once dropped
        try JournalLog(path: path + "-requests", limit: 10).importEntries([], lastID: 2, dropped: 0)

        let store = try Store(path: path)
        defer { store.close() }
        #expect(try store.journalTargets() == ["/1", "/2"])
    }

    /// A database at `path` with the first `migrations` migrations, when the journal was a table, holding
    /// a request per target.
    private static func oldJournalDatabase(_ path: String, migrations: Int, targets: [String]) throws
        -> SQLiteConnection
    {
        let old = try SQLiteConnection(path: path)
        _ = try SQLiteMigrator.migrate(old, Array(Schema.migrations.prefix(migrations)))
        for target in targets {
            try old.query(
                """
                INSERT INTO request_journal (received_at, method, target, endpoint, headers, body, status,
                    duration_us) VALUES (1, 'GET', ?, 'test', '[]', x'', 200, 0)
                """, [target])
        }
        return old
    }

    @Test func pagesTheJournalWithACursor() throws {
        let store = try Store(path: nil)
        defer { store.close() }
        for index in 0..<5 {
            try store.writeAndWait { $0.appendJournal(record("/\(index)")) }
        }
        let first = try store.read { try $0.journalPage(after: 0, limit: 2) }
        #expect(first.requests.map(\.target) == ["/0", "/1"])
        let cursor = try #require(first.nextCursor)
        let rest = try store.read { try $0.journalPage(after: cursor, limit: 10) }
        #expect(rest.requests.map(\.target) == ["/2", "/3", "/4"])
        #expect(rest.nextCursor == nil)
    }

    @Test(arguments: [true, false])
    func applicationsInMemoryFollowEveryCommittedChange(onFile: Bool) throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: onFile ? directory.path + "/db.sqlite3" : nil)
        defer { store.close() }
        #expect(try store.application(key: "k1") == nil)  // read (and kept) before the application exists

        try store.writeAndWait {
            try $0.insertApplication(Application(name: "One", platform: .ios, integrationKey: "k1"))
        }
        #expect(try store.application(key: "k1")?.application.name == "One")

        _ = try store.writeAndWait {
            try $0.updateApplication(Application(name: "One", platform: .ios, integrationKey: "k1", enabled: false))
        }
        #expect(try store.application(key: "k1")?.application.enabled == false)

        try store.writeAndWait {
            try $0.upsertApplication(Application(name: "Two", platform: .android, integrationKey: "k2"))
        }
        #expect(try store.application(key: "k2")?.application.platform == .android)

        // A batch that fails is rolled back: the copy read after it is still the committed one.
        #expect(throws: StoreConflict.self) {
            try store.writeAndWait {
                try $0.insertApplication(Application(name: "Dup", platform: .ios, integrationKey: "k2"))
            }
        }
        #expect(try store.application(key: "k2")?.application.name == "Two")

        _ = try store.writeAndWait { try $0.deleteApplication(key: "k1") }
        #expect(try store.application(key: "k1") == nil)

        try store.writeAndWait { try $0.clearForSnapshot() }
        #expect(try store.application(key: "k2") == nil)
    }

    @Test func locksTheDataDirectoryForOneProcess() throws {
        let directory = TemporaryDirectory()
        let first = try DataDirectory(path: directory.path + "/data/nested")
        #expect(throws: StoreError.dataDirectoryInUse(path: directory.path + "/data/nested")) {
            try DataDirectory(path: directory.path + "/data/nested")
        }
        _ = first
    }
}

private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var failures: [Int] = []
    func append(_ index: Int, _ result: Result<Void, any Error>) {
        if case .failure = result { lock.withLock { failures.append(index) } }
    }
    var failed: [Int] { lock.withLock { failures.sorted() } }
}
