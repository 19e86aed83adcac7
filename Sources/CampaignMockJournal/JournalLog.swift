package import CampaignMockModel
import CampaignMockSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One change to the journal made by a write job; the store's writer hands a batch's changes to
/// ``JournalLog/write(_:)`` before the batch commits.
package enum JournalChange: Sendable {
    case append(id: Int64, JournalRecord)
    /// Deletes the entries so far, or those naming one integration key.
    case clear(appKey: String?)
}

/// The request journal: the newest entries, in append-only files beside the database, with an index of
/// them in memory.
///
/// The store's writer writes a batch's journal changes to the file (one `write`) before the batch's
/// SQLite commit and makes them visible after it; a failed commit cuts them off the file again. So an
/// answered request is in the journal, after a `kill -9` too. (A process killed between the two writes
/// leaves the entries of a batch whose SQLite changes are not committed; nobody got an answer for them.)
/// Kept out of SQLite because a journal row there was the dearest part of a request: its bytes went
/// through the WAL and the checkpoint, and dropping old rows made new rows reuse freed pages (see the
/// docs/architecture.md, "The request journal").
///
/// Two files: the current one, and the one before it (`.old`). When the current file holds `limit`
/// entries, or half of `byteBudget` bytes, it becomes the old one, replacing the one before, and a new file begins (with a copy of any
/// entry still kept that only the replaced file held, which only clears of one application's entries
/// leave behind). The entries kept take at most half of `byteBudget` (the oldest go first), so the two
/// files together take about `byteBudget` on disk, whatever the size of the requests. A trim is written as the lowest id it kept, with the next batch; a start reads both
/// files in order and ends with the same entries, ids and dropped count.
package final class JournalLog: Sendable {
    /// What the index keeps of an entry: what filters compare, and where its bytes are.
    struct Indexed: Sendable {
        let id: Int64
        let receivedAt: Int64
        let status: Int
        let endpoint: String
        let appKey: String?
        private(set) var storage: any JournalStorage
        private(set) var offset: Int
        let count: Int

        /// The same entry, now read from its copy at `offset` in `storage`.
        mutating func move(to storage: any JournalStorage, offset: Int) {
            self.storage = storage
            self.offset = offset
        }
    }

    /// A batch written to the file but not yet visible: ``publish(_:)`` or ``discard(_:)`` it.
    package struct Written: Sendable {
        fileprivate let changes: [JournalChange]
        fileprivate let indexed: [Indexed]
        fileprivate let sizeBefore: Int
        fileprivate let wroteTrim: Bool
    }

    private struct State: Sendable {
        /// Entries by id; those before `first` are trimmed (removed from the array in chunks).
        var entries: [Indexed] = []
        var first = 0
        /// The bytes of the visible entries in their files.
        var visibleBytes = 0
        var dropped: Int64 = 0
        /// The highest id ever written.
        var lastID: Int64 = 0
        var current: any JournalStorage
        var currentSize = 0
        var currentEntries = 0
        /// The lowest id the last trim kept, not yet written (it goes with the next batch).
        var unwrittenTrim: Int64?

        var visible: ArraySlice<Indexed> { entries[first...] }

        mutating func add(_ entry: Indexed) {
            entries.append(entry)
            visibleBytes += entry.count
            lastID = max(lastID, entry.id)
        }

        mutating func clear(appKey: String?) {
            if let appKey {
                entries = visible.filter { $0.appKey != appKey }
            } else {
                entries = []
                dropped = 0
            }
            first = 0
            visibleBytes = entries.reduce(0) { $0 + $1.count }
        }

        /// Drops the oldest entries (keeping the newest) until the others take at most `bytes`; returns the
        /// lowest id kept, if any went.
        mutating func trim(toBytes bytes: Int) -> Int64? {
            var excess = 0
            var over = visibleBytes - bytes
            while over > 0 && first + excess < entries.count - 1 {
                over -= entries[first + excess].count
                excess += 1
            }
            guard excess > 0 else { return nil }
            drop(excess)
            return entries[first].id
        }

        /// Drops the oldest entries beyond `limit` and counts them; returns the lowest id kept, if any went.
        @discardableResult
        mutating func trim(to limit: Int) -> Int64? {
            let excess = entries.count - first - limit
            guard excess > 0 else { return nil }
            drop(excess)
            return entries[first].id
        }

        /// Drops the entries below `lowestKept`; counts them when `counted`.
        mutating func trim(below lowestKept: Int64, counted: Bool) {
            let excess = visible.prefix { $0.id < lowestKept }.count
            drop(excess)
            if !counted { dropped -= Int64(excess) }
        }

        private mutating func drop(_ count: Int) {
            for entry in entries[first..<first + count] { visibleBytes -= entry.count }
            first += count
            dropped += Int64(count)
            if first >= 4096 && first >= entries.count / 2 {
                entries.removeFirst(first)
                first = 0
            }
        }
    }

    /// A change as a file holds it.
    private enum FileChange {
        /// An `S` record: the highest id given, the dropped count and the lowest id kept.
        case start(lastID: Int64, dropped: Int64, lowestKept: Int64)
        case append(Indexed)
        case clear(appKey: String?)
        case trim(lowestKept: Int64)
    }

    /// Most entries kept.
    package let limit: Int
    /// About the most bytes the two files take (the entries kept, half of it).
    package let byteBudget: Int
    /// The current file, nil in memory.
    private let path: String?
    private let state: Mutex<State>
    /// What the start found damaged and skipped (for the server to say loudly); empty when nothing was.
    package let damage: [JournalDamage]

    /// Opens the journal at `path` (nil: in memory), reading what its files hold.
    ///
    /// A damaged stretch of a file (a checksum that does not match, bytes that are no record) is skipped:
    /// the entries after it are kept, the damaged file is kept beside the journal as
    /// `<file>.damaged-<time>` for a look, the journal is written anew without it, and ``damage`` says
    /// which ids were lost. Ids never go backwards: when nothing after the damage tells which ids it held,
    /// new ids start after the most it could have held. Files of the first format are written anew in
    /// this one.
    ///
    /// - Throws: ``JournalFileError`` when a file cannot be opened, read or repaired.
    package init(path: String?, limit: Int, byteBudget: Int = 256 << 20) throws(JournalFileError) {
        self.path = path
        self.limit = limit
        self.byteBudget = byteBudget
        guard let path else {
            let storage = JournalMemoryStorage()
            let start = JournalFile.fileStart(lastID: 0, dropped: 0, lowestKept: 0)
            storage.write(start, at: 0)
            var state = State(current: storage)
            state.currentSize = start.count
            self.state = Mutex(state)
            damage = []
            return
        }
        var state = State(current: JournalMemoryStorage())
        var found: [(path: String, replay: Replay)] = []
        if let old = try JournalFileStorage(path: path + ".old", create: false) {
            found.append((path + ".old", Self.replay(try old.readAll(), from: old, into: &state, isCurrent: false)))
        }
        let current = try JournalFileStorage(path: path, create: true)!
        let bytes = try current.readAll()
        let replayed = Self.replay(bytes, from: current, into: &state, isCurrent: true)
        found.append((path, replayed))
        // A trim the process had no batch left to write with.
        let trimmed = state.trim(to: limit)
        state.unwrittenTrim = state.trim(toBytes: byteBudget / 2) ?? trimmed
        state.current = current
        state.currentSize = replayed.validSize
        state.currentEntries = replayed.entries
        var damage: [JournalDamage] = []
        for (file, replay) in found {
            for stretch in replay.damage {
                damage.append(
                    JournalDamage(
                        path: file, offset: stretch.offset, length: stretch.length, lastIDBefore: stretch.after,
                        firstIDAfter: stretch.before))
                // Nothing after it says which ids it held: new ones start after the most it could have.
                if stretch.before == nil {
                    state.lastID = max(
                        state.lastID, stretch.after + Int64(stretch.length / JournalFile.smallestEntry) + 1)
                }
            }
        }
        let rewrite = found.contains { !$0.replay.damage.isEmpty || $0.replay.format == .first }
        if rewrite {
            for index in damage.indices { damage[index].keptAs = FileBytes.moveAside(damage[index].path) }
            // Every entry kept is copied into the new file: the one before it has nothing more to give.
            try Self.writeFile(path, &state, copying: { _ in true })
            unlink(path + ".old")
            state.currentEntries = 0
        } else {
            if replayed.validSize < bytes.count { try current.truncate(to: replayed.validSize) }
            if replayed.format == nil {
                let start = JournalFile.fileStart(
                    lastID: state.lastID, dropped: state.dropped, lowestKept: state.visible.first?.id ?? 0)
                try current.write(start, at: 0)
                state.currentSize = start.count
            }
        }
        self.state = Mutex(state)
        self.damage = damage
    }

    /// What reading one file found.
    private struct Replay {
        var format: JournalFile.Format?
        /// Where whole records end, before an incomplete last one (appends go on from there).
        var validSize = 0
        /// Entries in its batches.
        var entries = 0
        /// Damaged stretches: where, how long, the last id before and the first id after (when known).
        var damage: [(offset: Int, length: Int, after: Int64, before: Int64?)] = []
    }

    /// Reads the records of one file into `state`. A stretch that is no whole record is damage when a
    /// whole record follows it, or when it runs to the end and is not what a process killed while writing
    /// leaves (the beginning of a record, or zeros). The dropped count of the file before the current one
    /// does not count: the current file's start record says what it was then.
    private static func replay(
        _ bytes: [UInt8], from storage: any JournalStorage, into state: inout State, isCurrent: Bool
    ) -> Replay {
        var result = Replay()
        guard let format = JournalFile.Format(of: bytes) else {
            if !bytes.isEmpty { result.damage.append((0, bytes.count, state.lastID, nil)) }
            return result
        }
        result.format = format
        result.validSize = format.firstRecord
        // The first format has no checksums to find the next record by: it stops at the first that is not one.
        let damagedEnd = JournalFile.scan(bytes, from: format.firstRecord, stoppingAtDamage: format == .first) {
            Self.record(in: bytes, at: $0, format: format, storage: storage)
        } found: { record, end, damaged in
            if let damaged {
                let firstID = record.changes.lazy.compactMap { change -> Int64? in
                    if case .append(let entry) = change { return entry.id }
                    return nil
                }.first
                result.damage.append((damaged.lowerBound, damaged.count, state.lastID, firstID))
            }
            apply(record.changes, kept: record.kind == JournalFile.kept, to: &state, isCurrent: isCurrent)
            if record.kind == JournalFile.batch {
                result.entries += record.changes.count { if case .append = $0 { true } else { false } }
            }
            if result.damage.isEmpty { result.validSize = end }
        }
        if let start = damagedEnd {
            if JournalFile.isCutShort(bytes, from: start, kinds: JournalFile.records, format: format) {
                // The process stopped while writing it: nobody got an answer for what it held.
                if result.damage.isEmpty { result.validSize = start }
            } else {
                result.damage.append((start, bytes.count - start, state.lastID, nil))
            }
        }
        return result
    }

    /// The whole record at `position` with its changes, or nil when there is none there (too short,
    /// an unknown kind, a checksum that does not match, changes that do not parse).
    private static func record(
        in bytes: [UInt8], at position: Int, format: JournalFile.Format, storage: any JournalStorage
    ) -> ((kind: UInt8, changes: [FileChange]), end: Int)? {
        guard
            let (kind, payload) = JournalFile.wholeRecord(
                in: bytes, at: position, kinds: JournalFile.records, format: format
            )
        else { return nil }
        var reader = JournalFile.Reader(bytes, from: payload.lowerBound, end: payload.upperBound)
        guard let changes = try? Self.changes(kind, &reader, storage: storage) else { return nil }
        return ((kind, changes), payload.upperBound)
    }

    /// A record's changes; read whole before any of it counts: a record is all or nothing.
    private static func changes(_ kind: UInt8, _ record: inout JournalFile.Reader, storage: any JournalStorage)
        throws(JournalFileError) -> [FileChange]
    {
        // Ids and counts a server could reach, and room to count on from them: a record that says more (an
        // id of Int64.max) is damage, never a trap in the arithmetic after it.
        func count(_ value: Int64) throws(JournalFileError) -> Int64 {
            guard value >= 0 && value <= Int64.max >> 2 else { throw .malformed }
            return value
        }
        if kind == JournalFile.start {
            return [
                .start(
                    lastID: try count(record.integer()), dropped: try count(record.integer()),
                    lowestKept: try count(record.integer()))
            ]
        }
        var changes: [FileChange] = []
        while !record.atEnd {
            let offset = record.position
            switch record.bytes[offset] {
            case JournalFile.clear:
                _ = try record.byte()
                changes.append(.clear(appKey: try record.text()))
            case JournalFile.trim:
                _ = try record.byte()
                changes.append(.trim(lowestKept: try count(record.integer())))
            default:
                // Only what the index keeps: a start with a full journal read every field into strings
                // (13 ms for 20,000 registrations).
                let entry = try record.entrySummary()
                _ = try count(entry.id)
                changes.append(
                    .append(
                        Indexed(
                            id: entry.id, receivedAt: entry.receivedAt, status: entry.status,
                            endpoint: entry.endpoint, appKey: entry.appKey, storage: storage,
                            offset: offset, count: record.position - offset)))
            }
        }
        return changes
    }

    private static func apply(_ changes: [FileChange], kept: Bool, to state: inout State, isCurrent: Bool) {
        for change in changes {
            switch change {
            case .start(let lastID, let dropped, let lowestKept):
                state.lastID = max(state.lastID, lastID)
                state.trim(below: lowestKept, counted: false)
                if isCurrent { state.dropped = dropped }
            case .append(let entry):
                state.add(entry)
            case .clear(let appKey):
                state.clear(appKey: appKey)
            case .trim(let lowestKept):
                state.trim(below: lowestKept, counted: true)
            }
        }
        // Kept entries are older than those of the file before: back in order of id. A start that
        // stopped while writing a new file anew may find an entry in both files: it counts once.
        if kept {
            var seen: Set<Int64> = []
            state.entries = state.visible.sorted { $0.id < $1.id }.filter { seen.insert($0.id).inserted }
            state.first = 0
            state.visibleBytes = state.entries.reduce(0) { $0 + $1.count }
        }
    }

    /// The highest id written so far (0 when none).
    package var lastID: Int64 { state.withLock { $0.lastID } }

    /// How many entries the journal holds.
    package var count: Int { state.withLock { $0.visible.count } }

    /// How many entries a clear for `appKey` (nil: all) deletes once the batch's `pending` changes
    /// before it are applied.
    package func countCleared(appKey: String?, after pending: [JournalChange]) -> Int {
        var byKey: [String?: Int] = [:]
        for entry in state.withLock({ $0.visible }) { byKey[entry.appKey, default: 0] += 1 }
        for change in pending {
            switch change {
            case .append(_, let record): byKey[record.appKey, default: 0] += 1
            case .clear(nil): byKey = [:]
            case .clear(let key?): byKey[key] = nil
            }
        }
        guard let appKey else { return byKey.values.reduce(0, +) }
        return byKey[appKey] ?? 0
    }

    /// Writes a batch's changes to the current file (one write). Call ``publish(_:)`` after the batch
    /// committed, or ``discard(_:)`` when it did not.
    package func write(_ changes: [JournalChange]) throws(JournalFileError) -> Written {
        try state.withLock { state throws(JournalFileError) in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(changes.count * 512)
            let batch = JournalFile.begin(JournalFile.batch, in: &bytes)
            if let lowestKept = state.unwrittenTrim { JournalFile.appendTrim(lowestKept: lowestKept, to: &bytes) }
            var indexed: [Indexed] = []
            indexed.reserveCapacity(changes.count)
            for change in changes {
                switch change {
                case .append(let id, let record):
                    let offset = JournalFile.appendEntry(id: id, record, to: &bytes)
                    indexed.append(
                        Indexed(
                            id, record, storage: state.current, offset: state.currentSize + offset,
                            count: bytes.count - offset))
                case .clear(let appKey):
                    JournalFile.appendClear(appKey: appKey, to: &bytes)
                }
            }
            JournalFile.end(batch, in: &bytes)
            let sizeBefore = state.currentSize
            do throws(JournalFileError) {
                try state.current.write(bytes, at: sizeBefore)
            } catch {
                try? state.current.truncate(to: sizeBefore)
                throw error
            }
            state.currentSize += bytes.count
            return Written(
                changes: changes, indexed: indexed, sizeBefore: sizeBefore, wroteTrim: state.unwrittenTrim != nil)
        }
    }

    /// Makes a written batch visible, trims to ``limit``, and begins a new file when the current one
    /// holds `limit` entries.
    package func publish(_ written: Written) {
        state.withLock { state in
            var next = written.indexed.makeIterator()
            for change in written.changes {
                switch change {
                case .append: state.add(next.next()!)
                case .clear(let appKey): state.clear(appKey: appKey)
                }
            }
            if written.wroteTrim { state.unwrittenTrim = nil }
            let trimmed = state.trim(to: limit)
            if let lowestKept = state.trim(toBytes: byteBudget / 2) ?? trimmed { state.unwrittenTrim = lowestKept }
            state.currentEntries += written.indexed.count
            if state.currentEntries >= limit || state.currentSize >= byteBudget / 2 { beginNewFile(&state) }
        }
    }

    /// Cuts a written batch off the file again (its commit failed).
    package func discard(_ written: Written) {
        state.withLock { state in
            try? state.current.truncate(to: written.sizeBefore)
            state.currentSize = written.sizeBefore
        }
    }

    /// The current file becomes the old one (the one before is deleted) and a new one begins with the
    /// id, dropped count and lowest id kept so far, and a copy of the entries still kept that are in
    /// neither (after a clear of one application's entries, older ones of others may be). When this
    /// fails, the current file goes on growing and the next batch tries again.
    private func beginNewFile(_ state: inout State) {
        let current = state.current
        if let path { guard rename(path, path + ".old") == 0 else { return } }
        // When the new file cannot be written, appends go on into the renamed one until one can be made;
        // a start reads both files either way.
        try? Self.writeFile(path, &state, copying: { $0.storage !== current })
    }

    /// Makes a new current file at `path` (nil: in memory), through a temporary file so that a process
    /// stopped meanwhile leaves the old or the new one: a start record and a copy of the kept entries
    /// `copy` selects, which the index then points to (the next new file need not copy them again).
    private static func writeFile(_ path: String?, _ state: inout State, copying copy: (Indexed) -> Bool)
        throws(JournalFileError)
    {
        var bytes = JournalFile.fileStart(
            lastID: state.lastID, dropped: state.dropped, lowestKept: state.visible.first?.id ?? state.lastID + 1)
        let selected = state.visible.indices.filter { copy(state.entries[$0]) }
        var copied: [(index: Int, offset: Int)] = []
        if !selected.isEmpty {
            let kept = JournalFile.begin(JournalFile.kept, in: &bytes)
            for index in selected {
                let entry = state.entries[index]
                let entryBytes = try entry.storage.read(offset: entry.offset, count: entry.count)
                copied.append((index, bytes.count))
                bytes += entryBytes
            }
            JournalFile.end(kept, in: &bytes)
        }
        let storage: any JournalStorage
        if let path {
            let temporary = path + ".new"
            unlink(temporary)
            guard let file = try JournalFileStorage(path: temporary, create: true) else {
                throw .system(temporary, "open")
            }
            try file.write(bytes, at: 0)
            guard rename(temporary, path) == 0 else { throw .system(path, "rename") }
            storage = file
        } else {
            let memory = JournalMemoryStorage()
            memory.write(bytes, at: 0)
            storage = memory
        }
        for (index, offset) in copied { state.entries[index].move(to: storage, offset: offset) }
        state.current = storage
        state.currentSize = bytes.count
        state.currentEntries = 0
        state.unwrittenTrim = nil
    }

    /// A page of the entries matching `filter` (and with id at most `upTo`), at most `limit`, with how
    /// many match in all when `counting` (a wait reading on from where it stopped does not need that scan).
    package func page(_ paging: Paging, limit: Int, filter: JournalFilter, upTo: Int64?, counting: Bool)
        throws(JournalFileError) -> JournalPage
    {
        // The entries as they are now, scanned outside the lock: a reader holds the writer up only for
        // this copy of a reference (the writer's next append copies the array while a reader holds it).
        let (visible, dropped) = state.withLock { ($0.visible, $0.dropped) }
        let matching = { (entry: Indexed) in filter.matches(entry) && (upTo.map { entry.id <= $0 } ?? true) }
        let total = counting ? visible.reduce(0) { $0 + (matching($1) ? 1 : 0) } : nil
        var found: [Indexed] = []
        switch paging {
        case .oldestFirst(let after, _):
            for entry in visible[Self.firstIndex(in: visible, above: after)...] where matching(entry) {
                guard paging.admits(entry.id) else { break }
                found.append(entry)
                if found.count > limit { break }
            }
        case .newestFirst:
            for entry in visible.reversed() where paging.admits(entry.id) && matching(entry) {
                found.append(entry)
                if found.count > limit { break }
            }
        }
        var requests: [JournalEntry] = []
        requests.reserveCapacity(min(found.count, limit))
        for entry in found.prefix(limit) { requests.append(try Self.read(entry)) }
        return JournalPage(
            requests: requests, dropped: dropped, total: total,
            nextCursor: found.count > limit ? requests.last?.id : nil)
    }

    /// The entry with `id`, or nil when the journal does not hold it.
    package func entry(id: Int64) throws(JournalFileError) -> JournalEntry? {
        let visible = state.withLock { $0.visible }
        let index = Self.firstIndex(in: visible, above: id - 1)
        guard index < visible.endIndex, visible[index].id == id else { return nil }
        return try Self.read(visible[index])
    }

    /// The index of the first entry with id above `id` (entries are in id order).
    private static func firstIndex(in entries: ArraySlice<Indexed>, above id: Int64) -> Int {
        var low = entries.startIndex
        var high = entries.endIndex
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].id <= id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private static func read(_ entry: Indexed) throws(JournalFileError) -> JournalEntry {
        let bytes = try entry.storage.read(offset: entry.offset, count: entry.count)
        var reader = JournalFile.Reader(bytes)
        let (id, record) = try reader.entry()
        return JournalEntry(id: id, record: record)
    }

    /// The dropped count.
    package var dropped: Int64 { state.withLock { $0.dropped } }

    /// Begins the current file again with `lastID` and `dropped`, then appends `entries`, in order of id:
    /// an import into an empty journal (the store's of an older database's journal table).
    package func importEntries(_ entries: [(id: Int64, record: JournalRecord)], lastID: Int64, dropped: Int64)
        throws(JournalFileError)
    {
        try state.withLock { state throws(JournalFileError) in
            let start = JournalFile.fileStart(lastID: lastID, dropped: dropped, lowestKept: 0)
            try state.current.truncate(to: 0)
            try state.current.write(start, at: 0)
            state.currentSize = start.count
            state.lastID = lastID
            state.dropped = dropped
        }
        guard !entries.isEmpty else { return }
        publish(try write(entries.map { .append(id: $0.id, $0.record) }))
    }
}

extension JournalLog.Indexed {
    init(_ id: Int64, _ record: JournalRecord, storage: any JournalStorage, offset: Int, count: Int) {
        self.init(
            id: id, receivedAt: record.receivedAtMicros, status: record.status, endpoint: record.endpoint,
            appKey: record.appKey, storage: storage, offset: offset, count: count)
    }
}

/// Which journal entries a listing or a wait returns.
package struct JournalFilter: Sendable, Equatable {
    package var endpoint: String?
    package var status: Int?
    package var appKey: String?
    /// Microseconds since 1970; entries at or after it.
    package var since: Int64?
    /// Entries with a greater id (those after a mark).
    package var afterID: Int64?

    package init(endpoint: String? = nil) {
        self.endpoint = endpoint
    }
}

extension JournalFilter {
    fileprivate func matches(_ entry: JournalLog.Indexed) -> Bool {
        if let endpoint, entry.endpoint != endpoint { return false }
        if let status, entry.status != status { return false }
        if let appKey, entry.appKey != appKey { return false }
        if let since, entry.receivedAt < since { return false }
        if let afterID, entry.id <= afterID { return false }
        return true
    }
}

/// A stretch of a journal file a start found damaged and skipped.
package struct JournalDamage: Sendable, Equatable, CustomStringConvertible {
    /// The file, as it was named when read.
    package let path: String
    /// Where the damage begins, and how many bytes it spans.
    package let offset: Int
    package let length: Int
    /// The id of the last entry read before it (0: none), and of the first read after it (nil: none).
    package let lastIDBefore: Int64
    package let firstIDAfter: Int64?
    /// Where the damaged file was kept (nil when it could not be moved).
    package var keptAs: String?

    package var description: String {
        let lost =
            if let after = firstIDAfter {
                switch after - lastIDBefore {
                case ...1: "no entry is lost"
                case 2: "the entry with id \(lastIDBefore + 1) is lost"
                default: "entries with ids \(lastIDBefore + 1) to \(after - 1) are lost"
                }
            } else {
                "entries after id \(lastIDBefore) are lost; new ids start after the most it could hold"
            }
        let kept = keptAs.map { "; the damaged file is kept as \($0)" } ?? ""
        return "request journal \(path): \(length) damaged bytes at offset \(offset) skipped: \(lost)\(kept)"
    }
}
