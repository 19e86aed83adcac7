import CampaignMockTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import CampaignMockModel
@testable import CampaignMockStorage

/// The redo log (see ``RedoLog``): registrations and hits answered before SQLite commits them. A commit
/// delay of a minute keeps them waiting for as long as a test looks; a copy of the store's files taken
/// meanwhile is what a `kill -9` leaves.
@Suite("Redo log", .timeLimit(.minutes(2)))
struct RedoLogTests {
    private static let files = ["db.sqlite3", "db.sqlite3-wal", "db.sqlite3-redo", "db.sqlite3-requests"]

    private static func request(_ n: Int) -> RegistrationRequest {
        RegistrationRequest(
            registrationToken: "tok\(n)", integrationKey: "k", userKey: "user\(n)@example.com",
            device: DeviceFields(deviceName: "Pixel \(n)", osName: "android"),
            params: [AdditionalParam(name: "plan", value: "gold"), AdditionalParam(name: "n", value: "\(n)")])
    }

    /// A store with one application, waiting a minute before it commits answered operations.
    private static func store(_ directory: TemporaryDirectory) throws -> (Store, StoredApplication) {
        let store = try Store(path: directory.path + "/db.sqlite3", commitDelay: .seconds(60))
        try store.writeAndWait {
            try $0.insertApplication(Application(name: "A", platform: .android, integrationKey: "k"))
        }
        return (store, try #require(try store.application(key: "k")))
    }

    /// Registrations 0..<n (each its own batch, re-registering every third with a new user key) and a hit
    /// after each.
    private static func answer(_ range: Range<Int>, on store: Store, _ application: StoredApplication) throws {
        for n in range {
            var request = request(n % 3 == 2 ? n - 1 : n)
            if n % 3 == 2 { request.userKey = "changed\(n)@example.com" }
            let sent = request
            _ = try store.writeAndWait { try $0.register(sent, application: application, receivedAt: 1_000 + Int64(n)) }
            try store.writeAndWait {
                try $0.recordHit(
                    try TrackingID(parsing: "h\(String(n, radix: 16)),d\(n),\(1 + n % 2)"), userAgent: "ua \(n)",
                    remoteAddress: n % 2 == 0 ? "::1" : nil, receivedAt: 2_000 + Int64(n))
            }
        }
    }

    private static func count(_ table: String, in path: String) throws -> Int64 {
        try SQLiteConnection(path: path).integer("SELECT count(*) FROM \(table)")
    }

    /// Everything a read shows of the devices, their histories and the events.
    private static func contents(_ store: Store) throws -> [String] {
        try store.read { reader in
            let devices = try reader.devices(matching: DeviceFilter(), .newestFirst(before: nil), limit: 1000)
            let registrations = try reader.registrations(after: 0, since: nil, matching: DeviceFilter(), limit: 1000)
            let events = try reader.events(matching: EventFilter(), after: 0, limit: 1000).events
            return devices.devices.map { "\($0)" } + registrations.map { "\($0)" } + events.map { "\($0)" }
        }
    }

    private static func copy(_ directory: TemporaryDirectory, to copy: TemporaryDirectory, files: [String] = files) {
        for file in files {
            try? FileManager.default.removeItem(atPath: copy.path + "/" + file)
            try? FileManager.default.copyItem(atPath: directory.path + "/" + file, toPath: copy.path + "/" + file)
        }
    }

    @Test func answeredOperationsWaitInTheLogAndAReadCommitsThemFirst() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        let (store, application) = try Self.store(directory)
        defer { store.close() }
        try Self.answer(0..<30, on: store, application)
        // Answered, and only in the redo log: another connection sees none of them yet.
        #expect(try Self.count("devices", in: path) == 0)
        #expect(try Self.count("tracking_events", in: path) == 0)
        #expect(try RedoLog(path: path + "-redo").found.count == 60)
        // A read sees them all: it has them committed first, which empties the log.
        let contents = try Self.contents(store)
        #expect(contents.count == 20 + 30 + 30)
        #expect(try Self.count("devices", in: path) == 20)
        #expect(try Self.count("tracking_events", in: path) == 30)
        #expect(try RedoLog(path: path + "-redo").found.isEmpty)
    }

    @Test func aKilledStoreAppliesWhatItAnsweredAgainWithTheSameRows() throws {
        let directory = TemporaryDirectory()
        let killed = TemporaryDirectory()
        let (store, application) = try Self.store(directory)
        defer { store.close() }
        try Self.answer(0..<10, on: store, application)
        _ = try Self.contents(store)  // committed: the first ten are in the database file
        try Self.answer(10..<40, on: store, application)
        Self.copy(directory, to: killed)  // what a kill -9 leaves: the last thirty only in the redo log
        let expected = try Self.contents(store)

        let restarted = try Store(path: killed.path + "/db.sqlite3")
        defer { restarted.close() }
        #expect(restarted.redoSkipped.isEmpty)
        #expect(try Self.contents(restarted) == expected)
        #expect(try RedoLog(path: killed.path + "/db.sqlite3-redo").found.isEmpty)
    }

    @Test func operationsACommitAppliedAreNotAppliedTwice() throws {
        let directory = TemporaryDirectory()
        let killed = TemporaryDirectory()
        let (store, application) = try Self.store(directory)
        defer { store.close() }
        try Self.answer(0..<20, on: store, application)
        let log = TemporaryDirectory()
        Self.copy(directory, to: log, files: ["db.sqlite3-redo"])
        let expected = try Self.contents(store)  // commits them with their watermark
        // Killed after that commit but before the log was emptied: the old log beside the new database.
        Self.copy(directory, to: killed)
        Self.copy(log, to: killed, files: ["db.sqlite3-redo"])
        #expect(try RedoLog(path: killed.path + "/db.sqlite3-redo").found.count == 40)

        let restarted = try Store(path: killed.path + "/db.sqlite3")
        defer { restarted.close() }
        #expect(try Self.contents(restarted) == expected)
    }

    @Test func anyOtherWriteCommitsWhatWaits() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        let (store, application) = try Self.store(directory)
        defer { store.close() }
        try Self.answer(0..<5, on: store, application)
        #expect(try Self.count("devices", in: path) == 0)
        try store.writeAndWait {
            try $0.upsertApplication(Application(name: "B", platform: .ios, integrationKey: "b"))
        }
        #expect(try Self.count("devices", in: path) == 4)
        #expect(try Self.count("tracking_events", in: path) == 5)
    }

    @Test func aFailingJobLosesNothingThatWaits() throws {
        let directory = TemporaryDirectory()
        let killed = TemporaryDirectory()
        let (store, application) = try Self.store(directory)
        defer { store.close() }
        try Self.answer(0..<6, on: store, application)
        #expect(throws: StoreConflict.self) {
            try store.writeAndWait { transaction in
                try transaction.register(Self.request(99), application: application, receivedAt: 9_999)
                throw StoreConflict("refused")
            }
        }
        try Self.answer(6..<9, on: store, application)
        Self.copy(directory, to: killed)
        let expected = try Self.contents(store)
        #expect(expected.count == 6 + 9 + 9)
        #expect(!expected.joined().contains("tok99"))
        let restarted = try Store(path: killed.path + "/db.sqlite3")
        defer { restarted.close() }
        #expect(try Self.contents(restarted) == expected)
    }

    /// A subscriber of the sink runs on the writer thread, after the batch is in the redo log: a read there
    /// cannot ask the writer to commit first (it would wait for itself), and reads what was committed.
    @Test func aReadOnTheWriterThreadDoesNotWaitForItself() throws {
        let directory = TemporaryDirectory()
        let (store, application) = try Self.store(directory)
        defer { store.close() }
        let seen = Mutex<[Int]>([])
        store.sink.subscribe { _ in
            let devices =
                (try? store.read { try $0.devices(matching: DeviceFilter(), .newestFirst(before: nil), limit: 10) })
            seen.withLock { $0.append(devices?.devices.count ?? -1) }
        }
        try Self.answer(0..<2, on: store, application)
        #expect(seen.withLock { $0 } == [0, 0, 0, 0])
        #expect(try Self.contents(store).count == 2 + 2 + 2)
    }

    @Test func aRecordCutShortIsNotRead() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/redo"
        let operations = (0..<3).map { n in
            RedoOperation.hit(rawID: "h\(n),d,1", userAgent: nil, remoteAddress: "::1", receivedAt: Int64(n))
        }
        do {
            let log = try RedoLog(path: path)
            try log.append(Array(operations.prefix(2)))
            try log.append([operations[2]])
        }
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(whole.count - 3).write(to: URL(fileURLWithPath: path))
        let reopened = try RedoLog(path: path)
        #expect(reopened.found.map(\.operation) == Array(operations.prefix(2)))
        #expect(reopened.found.map(\.sequence) == [1, 2])
        #expect(reopened.nextSequence == 3)
        try reopened.append([operations[2]])
        #expect(try RedoLog(path: path).found.map(\.operation) == operations)
    }
}
