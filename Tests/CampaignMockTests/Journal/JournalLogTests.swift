import CampaignMockTestSupport
import Dispatch
import Foundation
import Testing

@testable import CampaignMockJournal
@testable import CampaignMockModel
@testable import CampaignMockSupport

/// The request journal's files: what a start reads back, after file changes, clears, a failed commit and
/// a process that stopped while writing.
@Suite("Request journal files")
struct JournalLogTests {
    private static func record(_ target: String, app: String? = nil, body: String = "") -> JournalRecord {
        JournalRecord(
            receivedAtMicros: 1_700_000_000_000_000, method: "POST", target: target, endpoint: "tracking",
            headersJSON: #"[["Host","h"]]"#, body: Array(body.utf8), status: 200, reason: app == nil ? nil : "r",
            appKey: app, durationMicros: 12, remoteAddress: "127.0.0.1:1")
    }

    /// Appends `targets` as one committed batch, with ids after the journal's last.
    private static func append(_ journal: JournalLog, _ targets: [String], app: String? = nil, body: String = "")
        throws
    {
        let first = journal.lastID + 1
        let changes = targets.enumerated().map {
            JournalChange.append(id: first + Int64($0), record($1, app: app, body: body))
        }
        journal.publish(try journal.write(changes))
    }

    private static func everything(_ journal: JournalLog) throws -> JournalPage {
        try journal.page(.oldestFirst(after: 0), limit: 1000, filter: JournalFilter(), upTo: nil, counting: false)
    }

    /// Every entry a start on `path` reads back.
    private static func reopened(_ path: String, limit: Int) throws -> JournalPage {
        try everything(try JournalLog(path: path, limit: limit))
    }

    /// Clears the entries naming `appKey` (nil: all) in a committed batch of its own.
    private static func clear(_ journal: JournalLog, app appKey: String?) throws {
        journal.publish(try journal.write([.clear(appKey: appKey)]))
    }

    @Test func aStartReadsBackTheEntriesIdsAndDroppedCountAcrossFileChanges() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/journal"
        let journal = try JournalLog(path: path, limit: 5)
        for batch in 0..<7 {
            try Self.append(journal, (0..<(batch % 3 + 1)).map { "/\(batch)/\($0)" }, app: batch == 5 ? "a" : nil)
        }
        try Self.clear(journal, app: "a")
        try Self.append(journal, ["/last"])
        let before = try Self.everything(journal)
        #expect(before.requests.map(\.target) == ["/4/1", "/6/0", "/last"])
        #expect(before.dropped == 8)
        #expect(journal.lastID == 14)

        let again = try JournalLog(path: path, limit: 5)
        #expect(try Self.everything(again) == before)
        #expect(again.lastID == 14)
        // Two files at most, holding at most twice the limit.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files == ["journal", "journal.old"])
        let entry = try #require(before.requests.first)
        #expect(entry.headers == [["Host", "h"]])
        #expect(entry.remoteAddress == "127.0.0.1:1")
        #expect(entry.durationMs == 0.012)
    }

    /// A clear of one application's entries can leave older entries of another kept while the file that
    /// holds them is replaced: the new file carries a copy.
    @Test func entriesOnlyAReplacedFileHeldAreCopiedIntoTheNewOne() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/journal"
        let journal = try JournalLog(path: path, limit: 3)
        try Self.append(journal, ["/b1"], app: "b")
        try Self.append(journal, ["/a1", "/a2"], app: "a")  // three entries: a new file begins
        try Self.clear(journal, app: "a")
        try Self.append(journal, ["/a3", "/a4"], app: "a")
        try Self.clear(journal, app: "a")
        try Self.append(journal, ["/a5"], app: "a")  // three in this file: the one with /b1 goes
        let before = try Self.everything(journal)
        #expect(before.requests.map(\.target) == ["/b1", "/a5"])
        #expect(try Self.reopened(path, limit: 3) == before)
        // Two more new files with /b1 kept: it is copied once each time, never twice.
        for round in 0..<6 {
            try Self.clear(journal, app: "a")
            try Self.append(journal, ["/x\(round)"], app: "a")
            try Self.clear(journal, app: "a")
            let kept = try Self.everything(journal)
            #expect(kept.requests.map(\.target) == ["/b1"])
            #expect(try Self.reopened(path, limit: 3) == kept)
        }
        try Self.append(journal, ["/a5", "/a6", "/a7"], app: "a")
        let after = try Self.everything(journal)
        #expect(after.requests.map(\.target) == ["/a5", "/a6", "/a7"])
        #expect(after.dropped == 1)  // /b1; the others were cleared
        #expect(try Self.reopened(path, limit: 3) == after)
    }

    /// A trim is written with the next batch; a start after a trim that had none still drops it, once.
    @Test func aTrimWithNoBatchAfterItIsMadeAgainOnStart() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/journal"
        let journal = try JournalLog(path: path, limit: 4)
        try Self.append(journal, ["/1", "/2", "/3"])
        try Self.append(journal, ["/4", "/5"])  // trims /1, written with no batch yet
        let before = try Self.everything(journal)
        #expect(before.dropped == 1)
        var again = try JournalLog(path: path, limit: 4)
        #expect(try Self.everything(again) == before)
        try Self.append(again, ["/6"])
        again = try JournalLog(path: path, limit: 4)
        let page = try Self.everything(again)
        #expect(page.requests.map(\.target) == ["/3", "/4", "/5", "/6"])
        #expect(page.dropped == 2)
    }

    @Test func aClearSurvivesARestartAndIdsKeepGrowing() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/journal"
        var journal = try JournalLog(path: path, limit: 100)
        try Self.append(journal, ["/a"], app: "a")
        try Self.append(journal, ["/b"], app: "b")
        try Self.append(journal, ["/none"])
        #expect(journal.countCleared(appKey: "a", after: []) == 1)
        try Self.clear(journal, app: "a")
        journal = try JournalLog(path: path, limit: 100)
        #expect(try Self.everything(journal).requests.map(\.target) == ["/b", "/none"])

        try Self.clear(journal, app: nil)
        journal = try JournalLog(path: path, limit: 100)
        #expect(journal.count == 0)
        #expect(journal.lastID == 3)
        try Self.append(journal, ["/next"])
        #expect(try Self.everything(journal).requests.map(\.id) == [4])
    }

    @Test func countsWhatAClearDeletesWithTheBatchBeforeIt() throws {
        let journal = try JournalLog(path: nil, limit: 100)
        try Self.append(journal, ["/a1", "/a2"], app: "a")
        try Self.append(journal, ["/b1"], app: "b")
        let pending: [JournalChange] = [
            .append(id: 4, Self.record("/a3", app: "a")), .clear(appKey: "b"),
            .append(id: 5, Self.record("/b2", app: "b")),
        ]
        #expect(journal.countCleared(appKey: "a", after: pending) == 3)
        #expect(journal.countCleared(appKey: "b", after: pending) == 1)
        #expect(journal.countCleared(appKey: nil, after: pending) == 4)
        #expect(journal.countCleared(appKey: nil, after: pending + [.clear(appKey: nil)]) == 0)
    }

    @Test func aDiscardedBatchIsCutOffTheFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/journal"
        var journal = try JournalLog(path: path, limit: 100)
        try Self.append(journal, ["/kept"])
        let size = try Self.size(path)
        journal.discard(try journal.write([.append(id: 2, Self.record("/rolled-back"))]))
        #expect(try Self.size(path) == size)
        try Self.append(journal, ["/after"])
        journal = try JournalLog(path: path, limit: 100)
        #expect(try Self.everything(journal).requests.map(\.target) == ["/kept", "/after"])
    }

    /// A process killed while writing a batch leaves part of it at the end of the file: a start reads up
    /// to the last whole record, cuts the rest, and appends after it.
    @Test(arguments: [1, 5, 9, 40])
    func aStartCutsAnIncompleteLastBatch(keptBytes: Int) throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/journal"
        var journal = try JournalLog(path: path, limit: 100)
        try Self.append(journal, ["/1", "/2"], app: "a")
        let whole = try Self.size(path)
        try Self.append(journal, ["/torn"], body: "x")
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.truncate(atOffset: UInt64(whole + keptBytes))
        try handle.close()

        journal = try JournalLog(path: path, limit: 100)
        #expect(try Self.size(path) == whole)
        #expect(try Self.everything(journal).requests.map(\.target) == ["/1", "/2"])
        try Self.append(journal, ["/3"])
        journal = try JournalLog(path: path, limit: 100)
        #expect(try Self.everything(journal).requests.map(\.target) == ["/1", "/2", "/3"])
    }

    @Test func filtersAndPagesByIdStatusEndpointAndKey() throws {
        let journal = try JournalLog(path: nil, limit: 100)
        try Self.append(journal, ["/1", "/2", "/3"], app: "a")
        try Self.append(journal, ["/4", "/5"])
        var filter = JournalFilter(endpoint: "tracking")
        filter.appKey = "a"
        let first = try journal.page(.oldestFirst(after: 0), limit: 2, filter: filter, upTo: nil, counting: false)
        #expect(first.requests.map(\.target) == ["/1", "/2"])
        #expect(first.nextCursor == 2)
        let rest = try journal.page(.oldestFirst(after: 2), limit: 2, filter: filter, upTo: nil, counting: false)
        #expect(rest.requests.map(\.target) == ["/3"])
        #expect(rest.nextCursor == nil)
        #expect(
            try journal.page(.oldestFirst(after: 0), limit: 10, filter: JournalFilter(), upTo: 4, counting: false)
                .requests.count == 4)
        filter = JournalFilter(endpoint: "soap")
        #expect(
            try journal.page(.oldestFirst(after: 0), limit: 10, filter: filter, upTo: nil, counting: false).requests
                .isEmpty)
    }

    @Test func pagesNewestFirstByCursorWithTheTotal() throws {
        let journal = try JournalLog(path: nil, limit: 100)
        try Self.append(journal, ["/1", "/2", "/3"], app: "a")
        try Self.append(journal, ["/4", "/5"])
        let all = JournalFilter()
        let first = try journal.page(.newestFirst(before: nil), limit: 2, filter: all, upTo: nil, counting: true)
        #expect(first.requests.map(\.target) == ["/5", "/4"])
        #expect(first.total == 5)
        let cursor = try #require(first.nextCursor)
        let second = try journal.page(.newestFirst(before: cursor), limit: 2, filter: all, upTo: nil, counting: true)
        #expect(second.requests.map(\.target) == ["/3", "/2"])
        let last = try journal.page(
            .newestFirst(before: second.nextCursor), limit: 2, filter: all, upTo: nil, counting: true)
        #expect(last.requests.map(\.target) == ["/1"])
        #expect(last.nextCursor == nil)
        var onlyA = JournalFilter()
        onlyA.appKey = "a"
        let filtered = try journal.page(.newestFirst(before: nil), limit: 10, filter: onlyA, upTo: nil, counting: true)
        #expect(filtered.requests.map(\.target) == ["/3", "/2", "/1"])
        #expect(filtered.total == 3)
        #expect(try journal.entry(id: 4)?.target == "/4")
        #expect(try journal.entry(id: 99) == nil)
    }

    /// Readers page while the writer appends, trims and begins new files (every 50 entries): each page
    /// holds whole entries in order of id, read from whichever file they are in, even one just replaced.
    @Test func readersPageWhileTheWriterReplacesFiles() throws {
        let directory = TemporaryDirectory()
        let journal = try JournalLog(path: directory.path + "/journal", limit: 50)
        let done = LockedCounter()  // bumped once when the writer is done
        let problems = LockedCounter()
        let readers = DispatchGroup()
        let reading = DispatchSemaphore(value: 0)  // each reader has read a page: the writer starts
        for _ in 0..<4 {
            // Threads of their own: four busy blocks on a dispatch queue of a two-CPU machine did not all
            // start until the queue added threads, a minute and more later.
            readers.enter()
            Thread {
                defer { readers.leave() }
                var first = true
                while done.value == 0 {
                    defer {
                        if first { reading.signal() }
                        first = false
                    }
                    do {
                        let page = try journal.page(
                            .oldestFirst(after: 0), limit: 100, filter: JournalFilter(), upTo: nil, counting: false)
                        let ids = page.requests.map(\.id)
                        if ids.count > 50 || ids != ids.sorted() || Set(ids).count != ids.count
                            || page.requests.contains(where: { $0.target != "/\($0.id)" })
                        {
                            problems.increment()
                        }
                    } catch {
                        problems.increment()
                    }
                }
            }.start()
        }
        for _ in 0..<4 { reading.wait() }
        var next: Int64 = 1
        for batch in 0..<1500 {
            let changes = (0..<(batch % 7 + 1)).map { offset in
                JournalChange.append(id: next + Int64(offset), Self.record("/\(next + Int64(offset))"))
            }
            next += Int64(changes.count)
            journal.publish(try journal.write(changes))
        }
        done.increment()
        readers.wait()
        #expect(problems.value == 0)
        let last = try Self.everything(journal)
        #expect(last.requests.map(\.id) == Array((next - 50)..<next))
        #expect(try Self.everything(try JournalLog(path: directory.path + "/journal", limit: 50)) == last)
    }

    @Test func inMemoryItStaysWithinItsLimit() throws {
        let journal = try JournalLog(path: nil, limit: 3)
        for index in 0..<10 { try Self.append(journal, ["/\(index)"], body: String(repeating: "b", count: 1000)) }
        let page = try Self.everything(journal)
        #expect(page.requests.map(\.target) == ["/7", "/8", "/9"])
        #expect(page.dropped == 7)
    }

    // MARK: - Damage

    /// The file's bytes, changed by `damage`, written back.
    private static func damage(_ path: String, _ change: (inout [UInt8]) -> Void) throws {
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        change(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Where each batch record of a file begins, in order.
    private static func batchOffsets(_ path: String) throws -> [Int] {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var offsets: [Int] = []
        var position = JournalFile.magic.count
        while position + JournalFile.headerSize <= bytes.count {
            let length = (0..<4).reduce(0) { $0 | Int(bytes[position + 1 + $1]) << (8 * $1) }
            if bytes[position] == JournalFile.batch { offsets.append(position) }
            position += JournalFile.headerSize + length
        }
        return offsets
    }

    /// A zeroed record in the middle: the entries after it are kept, the damage is named with the ids
    /// it lost, the damaged file is kept for a look, and ids go on growing from the highest.
    @Test func aZeroedRecordInTheMiddleIsSkippedAndNamed() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/journal"
        var journal = try JournalLog(path: path, limit: 100)
        for batch in 0..<4 { try Self.append(journal, ["/\(batch)a", "/\(batch)b"]) }
        let offsets = try Self.batchOffsets(path)
        try Self.damage(path) { bytes in
            for index in offsets[1]..<offsets[2] { bytes[index] = 0 }
        }
        journal = try JournalLog(path: path, limit: 100)
        #expect(try Self.everything(journal).requests.map(\.target) == ["/0a", "/0b", "/2a", "/2b", "/3a", "/3b"])
        let damage = try #require(journal.damage.first)
        #expect(journal.damage.count == 1)
        #expect((damage.lastIDBefore, damage.firstIDAfter) == (2, 5))
        #expect(damage.description.contains("entries with ids 3 to 4 are lost"))
        let kept = try #require(damage.keptAs)
        #expect(FileManager.default.fileExists(atPath: kept))
        try Self.append(journal, ["/next"])
        #expect(journal.lastID == 9)
        // Written anew without the damage: the next start finds none.
        journal = try JournalLog(path: path, limit: 100)
        #expect(journal.damage.isEmpty)
        #expect(try Self.everything(journal).requests.map(\.target).suffix(2) == ["/3b", "/next"])
    }

    /// A flipped byte in a body: its checksum does not match, so it is not served as if whole.
    @Test func aFlippedByteIsFoundByItsChecksum() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/journal"
        var journal = try JournalLog(path: path, limit: 100)
        try Self.append(journal, ["/1"], body: "first body")
        try Self.append(journal, ["/2"], body: "second body")
        try Self.append(journal, ["/3"], body: "third body")
        try Self.damage(path) { bytes in
            let at = try! #require(bytes.indices.first { bytes[$0...].starts(with: Array("second".utf8)) })
            bytes[at] ^= 0x20
        }
        journal = try JournalLog(path: path, limit: 100)
        let bodies = try Self.everything(journal).requests.map(\.body)
        #expect(bodies == ["first body", "third body"])
        #expect(journal.damage.map(\.firstIDAfter) == [3])
    }

    /// Damage in the last record: nothing after it says which ids it held, so new ids start after the
    /// most it could have held; they never go back to one an answered request had.
    @Test func idsNeverGoBackAfterDamageAtTheEnd() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/journal"
        var journal = try JournalLog(path: path, limit: 100)
        try Self.append(journal, ["/1"])
        try Self.append(journal, ["/2", "/3", "/4"])
        let last = try #require(try Self.batchOffsets(path).last)
        try Self.damage(path) { bytes in bytes[last + JournalFile.headerSize + 3] ^= 0xFF }
        journal = try JournalLog(path: path, limit: 100)
        #expect(try Self.everything(journal).requests.map(\.target) == ["/1"])
        #expect(journal.damage.first?.firstIDAfter == nil)
        #expect(journal.lastID >= 4)
        try Self.append(journal, ["/5"])
        #expect(try Self.everything(journal).requests.last?.id ?? 0 > 4)
    }

    /// A file of the first format (no magic, no checksums) is read whole and written anew in this one.
    @Test func aFileOfTheFirstFormatIsReadAndRewritten() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/journal"
        // What the first format wrote: an `S` record, then a batch of two entries, kind and length only.
        var entries: [UInt8] = []
        for (id, target) in [(Int64(1), "/old1"), (2, "/old2")] {
            _ = JournalFile.appendEntry(id: id, Self.record(target), to: &entries)
        }
        var bytes: [UInt8] = [JournalFile.start, 24, 0, 0, 0]
        for value in [Int64(2), 0, 1] { bytes += withUnsafeBytes(of: value.littleEndian, Array.init) }
        bytes += [JournalFile.batch] + withUnsafeBytes(of: UInt32(entries.count).littleEndian, Array.init) + entries
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var journal = try JournalLog(path: path, limit: 100)
        #expect(try Self.everything(journal).requests.map(\.target) == ["/old1", "/old2"])
        #expect(journal.damage.isEmpty)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))).starts(with: JournalFile.magic))
        try Self.append(journal, ["/new"])
        journal = try JournalLog(path: path, limit: 100)
        #expect(try Self.everything(journal).requests.map(\.id) == [1, 2, 3])
    }

    @Test func crc32cMatchesItsCheckValue() {
        // The check value of CRC-32C (RFC 3720 §B.4 lists the same polynomial).
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32C.checksum($0) } == 0xE306_9283)
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let whole = bytes.withUnsafeBytes { CRC32C.checksum($0) }
        #expect(CRC32C.checksum(bytes, 300..<1000, continuing: CRC32C.checksum(bytes, 0..<300)) == whole)
    }

    private static func size(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? -1
    }
}
