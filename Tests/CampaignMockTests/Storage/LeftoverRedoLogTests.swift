import CampaignMockTestSupport
import Foundation
import Testing

@testable import CampaignMockJournal
@testable import CampaignMockModel
@testable import CampaignMockStorage

/// The store commits every batch before its requests are answered and writes no redo log; a redo log an
/// older build left (see ``LeftoverRedoLog``) is read once at start, on a real data directory.
@Suite("Leftover redo log", .timeLimit(.minutes(2)))
struct LeftoverRedoLogTests {
    /// A store with one application, closed: what an older build left, but for its redo log.
    private static func database(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.path + "/db.sqlite3"
        let store = try Store(path: path)
        try store.writeAndWait {
            try $0.insertApplication(Application(name: "A", platform: .android, integrationKey: "k"))
        }
        store.close()
        return path
    }

    private static func registration(_ n: Int) -> RedoOperation {
        .registration(
            RegistrationRequest(
                registrationToken: "tok\(n)", integrationKey: "k", userKey: "user\(n)@example.com",
                device: DeviceFields(deviceName: "Pixel \(n)", osName: "android"),
                params: [AdditionalParam(name: "plan", value: "gold")]), applicationID: 1, receivedAt: 1_000 + Int64(n))
    }

    private static func hit(_ n: Int) -> RedoOperation {
        .hit(rawID: "h\(String(n, radix: 16)),d\(n),1", userAgent: "ua", remoteAddress: "::1", receivedAt: 2_000)
    }

    /// A `W` record as the older builds wrote it: its first sequence number, then the operations.
    private static func record(_ sequence: Int64, _ operations: [RedoOperation]) -> [UInt8] {
        var bytes: [UInt8] = []
        let record = JournalFile.begin(LeftoverRedoLog.batch, in: &bytes)
        JournalFile.append(sequence, to: &bytes)
        for operation in operations {
            switch operation {
            case .registration(let registration, let applicationID, let receivedAt):
                bytes.append(LeftoverRedoLog.registration)
                JournalFile.append(receivedAt, to: &bytes)
                JournalFile.append(applicationID, to: &bytes)
                for text in [registration.registrationToken, registration.integrationKey, registration.userKey] {
                    JournalFile.append(text: text, to: &bytes)
                }
                let device = registration.device
                for text in [
                    device.deviceImei, device.deviceName, device.deviceModel, device.deviceBrand,
                    device.deviceManufacturer, device.osName, device.osVersion, device.osLanguage,
                ] {
                    JournalFile.append(text: text, to: &bytes)
                }
                JournalFile.append(length: UInt32(registration.params.count), to: &bytes)
                for param in registration.params {
                    for text in [param.name, param.value, param.kind.rawValue] {
                        JournalFile.append(text: text, to: &bytes)
                    }
                }
            case .hit(let rawID, let userAgent, let remoteAddress, let receivedAt):
                bytes.append(LeftoverRedoLog.hit)
                JournalFile.append(receivedAt, to: &bytes)
                for text in [rawID, userAgent, remoteAddress] { JournalFile.append(text: text, to: &bytes) }
            }
        }
        JournalFile.end(record, in: &bytes)
        return bytes
    }

    private static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private static func count(_ sql: String, in path: String) throws -> Int64 {
        try SQLiteConnection(path: path).integer(sql)
    }

    private static func files(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test func noStoreWritesARedoLogAndAnAnswerMeansCommitted() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        let store = try Store(path: path)
        defer { store.close() }
        try store.writeAndWait {
            try $0.insertApplication(Application(name: "A", platform: .android, integrationKey: "k"))
        }
        let application = try #require(try store.application(key: "k"))
        for n in 0..<20 {
            guard case .registration(let request, _, let receivedAt) = Self.registration(n) else { continue }
            _ = try store.writeAndWait { try $0.register(request, application: application, receivedAt: receivedAt) }
            // Answered: another connection (what a kill -9 leaves to the next start) sees it already.
            #expect(try Self.count("SELECT count(*) FROM devices", in: path) == Int64(n + 1))
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-redo"))
    }

    @Test func aDataDirectoryOfANewerFormatIsRefusedClearlyAndAnOlderOneMarked() throws {
        let directory = TemporaryDirectory()
        let path = try Self.database(directory)
        #expect(try Self.count("PRAGMA user_version", in: path) == Store.dataFormat)
        try SQLiteConnection(path: path).execute("PRAGMA user_version = 0")  // as builds before the marker left it
        try Store(path: path).close()
        #expect(try Self.count("PRAGMA user_version", in: path) == Store.dataFormat)
        try SQLiteConnection(path: path).execute("PRAGMA user_version = \(Store.dataFormat + 1)")
        let error = #expect(throws: StoreError.self) { _ = try Store(path: path) }
        #expect(error == .newerFormat(found: Store.dataFormat + 1, known: Store.dataFormat))
        #expect(error?.description.contains("written by a newer campaign-mock") == true)
    }

    @Test func intactOperationsAboveTheWatermarkAreAppliedOnceThenTheFileIsRemoved() throws {
        let directory = TemporaryDirectory()
        let path = try Self.database(directory)
        // The older build's last commit applied operations up to 2: those are in the database already.
        try SQLiteConnection(path: path).execute(
            "INSERT INTO store_counters (name, value) VALUES ('redo-applied', 2)")
        try Self.write(
            LeftoverRedoLog.magic + Self.record(1, [Self.registration(1), Self.hit(1)])
                + Self.record(3, [Self.registration(3), Self.hit(3), Self.registration(4)]), to: path + "-redo")
        for start in 0..<2 {
            let store = try Store(path: path)
            if start == 0 {
                #expect(store.leftoverRedoLog.count == 1)
                #expect(store.leftoverRedoLog.allSatisfy { !$0.isDamage })
                #expect(store.leftoverRedoLog.first?.description.contains("applied 3 answered operation") == true)
            } else {
                #expect(store.leftoverRedoLog.isEmpty)
            }
            store.close()
            #expect(try Self.count("SELECT count(*) FROM devices", in: path) == 2)
            #expect(try Self.count("SELECT count(*) FROM devices WHERE registration_token = 'tok1'", in: path) == 0)
            #expect(try Self.count("SELECT count(*) FROM tracking_events", in: path) == 1)
            #expect(try Self.count("SELECT value FROM store_counters WHERE name = 'redo-applied'", in: path) == 5)
            #expect(!FileManager.default.fileExists(atPath: path + "-redo"))
        }
    }

    @Test func aDamagedRecordIsSkippedAndNamedTheLaterOnesAppliedAndTheFileKeptAside() throws {
        let directory = TemporaryDirectory()
        let path = try Self.database(directory)
        let first = Self.record(1, [Self.registration(1)])
        var damaged = Self.record(2, [Self.registration(2), Self.hit(2)])
        damaged[damaged.count - 2] ^= 0xFF  // its checksum no longer matches
        let bytes = LeftoverRedoLog.magic + first + damaged + Self.record(4, [Self.hit(4)])
        try Self.write(bytes, to: path + "-redo")
        let store = try Store(path: path)
        store.close()
        let damage = store.leftoverRedoLog.filter(\.isDamage).map(\.description)
        #expect(damage.count == 1)
        let offset = LeftoverRedoLog.magic.count + first.count
        #expect(damage.first?.contains("\(path)-redo: \(damaged.count) damaged bytes at offset \(offset)") == true)
        #expect(damage.first?.contains("operations 2 to 3 lost") == true)
        #expect(try Self.count("SELECT count(*) FROM devices WHERE registration_token = 'tok1'", in: path) == 1)
        #expect(try Self.count("SELECT count(*) FROM devices WHERE registration_token = 'tok2'", in: path) == 0)
        #expect(try Self.count("SELECT count(*) FROM tracking_events", in: path) == 1)
        // Moved aside with every byte it had, never deleted.
        let kept = try Self.files(in: directory).filter { $0.hasPrefix("db.sqlite3-redo.damaged-") }
        #expect(kept.count == 1)
        #expect(damage.first?.contains(kept.first ?? "?") == true)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + kept[0]))) == bytes)
        #expect(!FileManager.default.fileExists(atPath: path + "-redo"))
    }

    @Test func aRecordAtInt64MaxIsDamageNotATrap() throws {
        let directory = TemporaryDirectory()
        let path = try Self.database(directory)
        try Self.write(
            LeftoverRedoLog.magic + Self.record(1, [Self.hit(1)]) + Self.record(.max, [Self.hit(2), Self.hit(3)])
                + Self.record(.max, [Self.hit(4)]), to: path + "-redo")
        let store = try Store(path: path)
        store.close()
        #expect(store.leftoverRedoLog.filter(\.isDamage).count == 1)
        #expect(store.leftoverRedoLog.contains { $0.description.contains("operations after 1") })
        #expect(try Self.count("SELECT count(*) FROM tracking_events", in: path) == 1)
    }

    @Test func aLastRecordCutShortIsNotDamage() throws {
        let directory = TemporaryDirectory()
        let path = try Self.database(directory)
        let last = Self.record(2, [Self.hit(2)])
        try Self.write(LeftoverRedoLog.magic + Self.record(1, [Self.hit(1)]) + last.dropLast(3), to: path + "-redo")
        let store = try Store(path: path)
        store.close()
        #expect(store.leftoverRedoLog.allSatisfy { !$0.isDamage })
        #expect(try Self.count("SELECT count(*) FROM tracking_events", in: path) == 1)
        #expect(try Self.files(in: directory).allSatisfy { !$0.contains("redo") })
    }

    @Test func aFileWithoutTheMagicIsMovedAsideUntouched() throws {
        let directory = TemporaryDirectory()
        let path = try Self.database(directory)
        let bytes = Array("an unrelated file that happens to have this name\n".utf8)
        try Self.write(bytes, to: path + "-redo")
        let store = try Store(path: path)
        store.close()
        #expect(store.leftoverRedoLog.map(\.isDamage) == [true])
        let kept = try Self.files(in: directory).filter { $0.hasPrefix("db.sqlite3-redo.damaged-") }
        #expect(kept.count == 1)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + kept[0]))) == bytes)
    }

    @Test func aLinkIsRefusedAndItsTargetLeftAlone() throws {
        let directory = TemporaryDirectory()
        let elsewhere = TemporaryDirectory()
        let path = try Self.database(directory)
        let target = elsewhere.path + "/target"
        let bytes = LeftoverRedoLog.magic + Self.record(1, [Self.hit(1)])
        try Self.write(bytes, to: target)
        try FileManager.default.createSymbolicLink(atPath: path + "-redo", withDestinationPath: target)
        let error = #expect(throws: StoreError.self) { _ = try Store(path: path) }
        guard case .unsafeFile(let file, let reason)? = error else {
            Issue.record("not refused as an unsafe file: \(String(describing: error))")
            return
        }
        #expect(file == path + "-redo" && reason.contains("symbolic link"))
        #expect(try Self.count("SELECT count(*) FROM tracking_events", in: path) == 0)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: target))) == bytes)
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: path + "-redo")
        #expect(link == target)
    }
}

/// Every start-time reader takes a crafted number for damage, not for an arithmetic trap.
@Suite("Journal start record at Int64.max")
struct JournalOverflowTests {
    @Test func aStartRecordAtInt64MaxFollowedByDamageIsDamage() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/journal"
        let bytes = JournalFile.fileStart(lastID: .max, dropped: 0, lowestKept: 1) + [UInt8](repeating: 0x42, count: 40)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let journal = try JournalLog(path: path, limit: 100)
        #expect(!journal.damage.isEmpty)
        #expect(journal.lastID < Int64.max >> 1)
    }
}
