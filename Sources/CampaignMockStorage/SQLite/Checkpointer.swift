import CampaignMockSystem
package import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Copies the write-ahead log into the database file on its own thread and connection, so that no
/// request waits for it.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the WAL past 1,000 pages: every
/// request of that batch waited for the copy and its fsyncs, which is where a write's p99 came from.
/// The store's writer replaces it with a hook (`SQLiteConnection.afterEachCommit`) that tells this
/// class how large the WAL is after each commit.
///
/// Two jobs, on two threads:
/// - **Copying**, on this class's thread: each time the WAL has grown by
///   ``CheckpointPolicy/pagesBeforeCheckpoint`` pages since the last copy, a PASSIVE checkpoint copies
///   what no reader still needs; it never blocks the writer or a reader.
/// - **Starting the WAL again**, on the writer's thread: SQLite starts the WAL from its beginning only
///   when a write transaction begins with every frame copied. Under a steady load this thread never
///   quite catches up (the writer appends while it copies). Past ``CheckpointPolicy/pagesBeforeRestart``
///   pages this thread copies after every commit until one copy is small; then the writer copies the
///   frames written since itself, after its batch's replies are out (``finishIfLong(on:)``), and its
///   next transaction starts the WAL again. The WAL file thus stays near 64 MiB under load, and is
///   emptied when the store closes.
///
/// The numbers behind this policy are in docs/performance.md ("Settings chosen by measurement").
/// Committed data is in the WAL until it is copied: a kill -9 before a checkpoint loses nothing (SQLite
/// replays the WAL when it opens the file). A power cut loses what was never synced: at
/// `synchronous=NORMAL` a commit does not sync the WAL, a checkpoint does, and ``WALSyncer`` syncs it
/// at most ``CheckpointPolicy/syncInterval`` after a commit, so a power cut loses at most about that.
final class Checkpointer: @unchecked Sendable {
    private let policy: CheckpointPolicy
    private let syncer: WALSyncer

    private let connection: SQLiteConnection
    private let wakeup = DispatchSemaphore(value: 0)
    private struct State {
        /// A copy is due; the thread runs it when it wakes.
        var due = false
        var closing = false
        /// How many of the WAL's frames the last copy had copied.
        var copied = 0
        /// A copy ended with the WAL past ``CheckpointPolicy/pagesBeforeRestart`` pages: the writer
        /// finishes it, and this thread waits until the WAL has started again.
        var restart = false
    }
    private let state = Mutex(State())
    /// The WAL's length after the writer's last commit. Writer thread only.
    private var pagesAfterLastCommit = 0
    private var thread: SystemThread?

    init(path: String, policy: CheckpointPolicy) throws {
        self.policy = policy
        connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA synchronous=NORMAL; " + Store.fullSyncPragmas)
        syncer = WALSyncer(path: path + "-wal", interval: policy.syncInterval, synced: policy.walSynced)
        syncer.committed()  // what the start committed (migrations) is synced too
        thread = SystemThread(name: "store-checkpoint") { [self] in run() }
    }

    /// Called by the writer after each commit (on its thread): cheap unless a copy is due.
    func walHas(pages: Int) {
        syncer.committed()
        // A WAL shorter than after the last commit has started again from its beginning.
        let restarted = pages < pagesAfterLastCommit
        pagesAfterLastCommit = pages
        guard restarted || pages >= policy.pagesBeforeCheckpoint else { return }
        let wake = state.withLock { state in
            if restarted {
                state.copied = 0
                state.restart = false
            }
            // A ceiling that does not depend on this thread getting the CPU: at twice the restart length
            // the writer finishes the copy itself, whatever this thread managed (a machine starved of CPU
            // let the WAL reach 82 MB in a test whose policy meant 1 MB).
            if pages >= 2 * policy.pagesBeforeRestart && !state.restart {
                state.restart = true
                state.due = false
                return false
            }
            // While the writer finishes the copy, this thread stays out of its way. Past the restart
            // length it copies after every commit, so that what is left for the writer is small.
            let grown = pages - state.copied
            guard
                !state.due && !state.restart
                    && (grown >= policy.pagesBeforeCheckpoint || (pages >= policy.pagesBeforeRestart && grown > 0))
            else { return false }
            state.due = true
            return true
        }
        if wake { wakeup.signal() }
    }

    /// Called by the writer between batches (on its thread, with `writer` its connection): once a copy
    /// ended with the WAL past ``CheckpointPolicy/pagesBeforeRestart`` pages, copies the frames written
    /// since, so that the next transaction starts the WAL again. Until the WAL has started again (a
    /// reader may still need old frames, this thread may still be copying), each batch tries again.
    func finishIfLong(on writer: SQLiteConnection) {
        guard state.withLock({ $0.restart }) else { return }
        // This thread may hold the checkpoint lock meanwhile (busy: a starved machine let the WAL reach
        // 56 MB in a test whose policy meant 400 KB while it did): the writer waits for it, a millisecond
        // at a time, up to a fifth of a second, so that the next transaction starts the WAL again.
        for _ in 0..<200 {
            guard let row = try? writer.query("PRAGMA wal_checkpoint(PASSIVE)").first,
                let busy = row[0].integer, let frames = row[1].integer, let copied = row[2].integer
            else { return }
            if busy == 0 && frames == copied { return }
            usleep(1000)
        }
    }

    /// Whether the writer is to finish the copy (``finishIfLong(on:)``) before the next transaction.
    var writerFinishesTheCopy: Bool { state.withLock { $0.restart } }

    /// Stops the thread (the writer's own TRUNCATE checkpoint at close empties the WAL).
    func close() {
        state.withLock { $0.closing = true }
        wakeup.signal()
        thread?.join()
        syncer.close()
    }

    private func run() {
        while true {
            wakeup.wait()
            let (due, closing) = state.withLock { state in
                defer { state.due = false }
                return (state.due, state.closing)
            }
            if closing { return }
            // A checkpoint that fails (the disk, a busy lock) is tried again after the next commit.
            guard due, let copied = try? connection.query("PRAGMA wal_checkpoint(PASSIVE)").first?[2].integer else {
                continue
            }
            state.withLock { state in
                let last = Int(copied) - state.copied
                state.copied = Int(copied)
                // The writer takes over after a small copy (it then has about as little left), or when the
                // copies stay large for too long.
                let small = last <= policy.pagesBeforeCheckpoint / 8
                if copied >= policy.pagesBeforeRestart
                    && (small || copied >= policy.pagesBeforeRestart + 4 * policy.pagesBeforeCheckpoint)
                {
                    state.restart = true
                    state.due = false  // the writer copies what came meanwhile
                }
            }
        }
    }
}

/// Syncs the WAL file (`fsync`; `F_FULLFSYNC` on macOS) on its own thread, at most once an `interval`,
/// and only when a commit came since the last sync, as Redis's `appendfsync everysec` does: a power cut
/// then loses at most the commits of about the last `interval`. A commit only flags that a sync is due (an
/// atomic exchange, a signal when it is the first since the last sync); no request waits for a sync.
final class WALSyncer: @unchecked Sendable {
    private let path: String
    private let interval: DispatchTimeInterval
    private let synced: (@Sendable (Int) -> Void)?
    /// A commit came since the last sync began.
    private let pending = Atomic<Bool>(false)
    private let closing = Atomic<Bool>(false)
    private let wakeup = DispatchSemaphore(value: 0)
    private var thread: SystemThread?

    init(path: String, interval: DispatchTimeInterval, synced: (@Sendable (Int) -> Void)?) {
        self.path = path
        self.interval = interval
        self.synced = synced
        thread = SystemThread(name: "store-wal-sync") { [self] in run() }
    }

    /// After each commit, on the writer's thread.
    func committed() {
        if !pending.exchange(true, ordering: .acquiringAndReleasing) { wakeup.signal() }
    }

    /// Stops the thread; a commit not synced yet is synced now, whatever the writer's last checkpoint did.
    func close() {
        closing.store(true, ordering: .releasing)
        wakeup.signal()
        thread?.join()
        if pending.exchange(false, ordering: .acquiringAndReleasing) { sync() }
    }

    private func run() {
        var lastSync: DispatchTime?
        while true {
            wakeup.wait()
            if closing.load(ordering: .acquiring) { return }
            if let lastSync, lastSync + interval > .now() {
                // A close does not wait for the rest of the interval: its checkpoint syncs.
                _ = wakeup.wait(timeout: lastSync + interval)
                if closing.load(ordering: .acquiring) { return }
            }
            lastSync = .now()
            // Commits from here on are for the next sync.
            pending.store(false, ordering: .releasing)
            sync()
        }
    }

    private func sync() {
        guard let size = syncFile(path, flags: O_NOFOLLOW) else { return }
        // The WAL may have been made at this start: its name in the directory is synced once too, or a power
        // cut could lose the whole file.
        if !directorySynced {
            let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            directorySynced = syncFile(folder.isEmpty ? "/" : folder, flags: O_DIRECTORY) != nil
        }
        synced?(size)
    }

    /// Whether the WAL's directory entry has been synced. The syncing thread's (or the closing one's, after it).
    private var directorySynced = false
}

/// Opens `path` read-only with `flags` and syncs it to the disk; its length before the sync, or nil when it
/// could not be opened or synced. (Outside ``WALSyncer``, whose `close()` would hide the system call's.)
private func syncFile(_ path: String, flags: Int32) -> Int? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | flags)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    let size = fstat(descriptor, &status) == 0 ? Int(status.st_size) : 0
    return syncToDisk(descriptor) == 0 ? size : nil
}

/// When the WAL is copied and when it is started again, in pages (4 KiB each), and how often it is synced.
package struct CheckpointPolicy: Sendable {
    /// The longest a commit waits for the WAL to be synced (``WALSyncer``): about what a power cut loses.
    package var syncInterval: DispatchTimeInterval = .seconds(1)
    /// Called after each sync of the WAL with the length it had when the sync began (tests).
    package var walSynced: (@Sendable (Int) -> Void)?
    /// The WAL grows by this much between two copies.
    package var pagesBeforeCheckpoint = 400
    /// Past this length the writer finishes a copy itself; the WAL file stays about this long.
    package var pagesBeforeRestart = 16_000

    package init() {}
    package init(pagesBeforeCheckpoint: Int, pagesBeforeRestart: Int) {
        self.pagesBeforeCheckpoint = pagesBeforeCheckpoint
        self.pagesBeforeRestart = pagesBeforeRestart
    }
}
