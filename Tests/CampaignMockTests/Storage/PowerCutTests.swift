import CampaignMockTestSupport
import Foundation
import Synchronization
import Testing

@testable import CampaignMockModel
@testable import CampaignMockStorage

/// A power cut loses what never reached the disk. At `synchronous=NORMAL` a commit does not sync the WAL;
/// the store syncs it at most a second after a commit (``WALSyncer``). The cut is simulated on a real
/// data directory: a copy of the database file and of the WAL as far as it was synced when the power went.
@Suite("Power cut", .timeLimit(.minutes(2)))
struct PowerCutTests {
    @Test func aPowerCutLosesAtMostAboutTheLastSecond() throws {
        let directory = TemporaryDirectory()
        let copy = TemporaryDirectory()
        let path = directory.path + "/db.sqlite3"
        let synced = Mutex<Int>(0)
        // No checkpoint in the test's few seconds (a checkpoint syncs too): only the syncer syncs.
        var policy = CheckpointPolicy(pagesBeforeCheckpoint: 1 << 30, pagesBeforeRestart: 1 << 31)
        policy.walSynced = { bytes in synced.withLock { $0 = max($0, bytes) } }
        let store = try Store(path: path, checkpoints: policy)
        defer { store.close() }
        try store.writeAndWait {
            try $0.insertApplication(Application(name: "A", platform: .android, integrationKey: "k"))
        }
        let application = try #require(try store.application(key: "k"))
        // A few registrations a second, as a developer's app makes them, for four seconds.
        var answered: [(at: ContinuousClock.Instant, token: String)] = []
        let started = ContinuousClock.now
        while ContinuousClock.now - started < .seconds(4) {
            let request = RegistrationRequest(
                registrationToken: "tok\(answered.count)", integrationKey: "k", userKey: "u",
                device: DeviceFields(osName: "android"), params: [])
            _ = try store.writeAndWait { try $0.register(request, application: application, receivedAt: 1) }
            answered.append((.now, request.registrationToken))
            usleep(200_000)
        }
        // The power goes: the database file as it is, the WAL as far as a sync had reached.
        let cut = ContinuousClock.now
        let wal = try Data(contentsOf: URL(fileURLWithPath: path + "-wal")).prefix(synced.withLock { $0 })
        try FileManager.default.copyItem(atPath: path, toPath: copy.path + "/db.sqlite3")
        try wal.write(to: URL(fileURLWithPath: copy.path + "/db.sqlite3-wal"))

        let connection = try SQLiteConnection(path: copy.path + "/db.sqlite3")
        let kept = Set(try connection.query("SELECT registration_token FROM devices").compactMap { $0[0].text })
        // Everything answered more than the interval (and a second of a busy machine's slack) before the cut.
        let old = answered.filter { cut - $0.at > .seconds(2) }
        #expect(old.count >= 5)
        #expect(old.filter { !kept.contains($0.token) }.map(\.token) == [])
        #expect(kept.count <= answered.count)
    }
}
