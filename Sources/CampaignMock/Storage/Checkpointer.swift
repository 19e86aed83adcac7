import CampaignMockCore
import Dispatch
import Synchronization

/// Copies the write-ahead log into the database file on its own thread and connection, so that no
/// request waits for it.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the WAL past 1,000 pages: every
/// request of that batch waited for the copy and its fsyncs, which is where a write's p99 came from.
/// The store's writer turns it off (`PRAGMA wal_autocheckpoint=0`) and calls ``committed()`` after
/// each commit; at most every ``intervalMilliseconds`` this thread runs a PASSIVE checkpoint, which
/// copies what no reader still needs and never blocks the writer or a reader. After a complete
/// checkpoint the writer starts the WAL again from its beginning, so it stays small. Committed data
/// is in the WAL either way: a kill -9 between checkpoints loses nothing (SQLite replays the WAL).
final class Checkpointer: @unchecked Sendable {
    static let intervalMilliseconds = 200

    private let connection: SQLiteConnection
    private let wakeup = DispatchSemaphore(value: 0)
    private let state = Mutex<(written: Bool, closing: Bool)>((false, false))
    private var thread: SystemThread?

    init(path: String) throws {
        connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA synchronous=NORMAL")
        thread = SystemThread(name: "store-checkpoint") { [self] in run() }
    }

    /// A commit added to the WAL.
    func committed() {
        state.withLock { $0.written = true }
    }

    /// Stops the thread (the writer's own TRUNCATE checkpoint at close empties the WAL).
    func close() {
        state.withLock { $0.closing = true }
        wakeup.signal()
        thread?.join()
    }

    private func run() {
        while true {
            _ = wakeup.wait(timeout: .now() + .milliseconds(Self.intervalMilliseconds))
            let (written, closing) = state.withLock { state in
                defer { state.written = false }
                return (state.written, state.closing)
            }
            if closing { return }
            // A failed checkpoint (the disk, a busy lock) is tried again after the next commit.
            if written { try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)") }
        }
    }
}
