import CampaignMockModel
import CampaignMockSystem
package import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The SQLite store: one writer thread with group commit, and reader connections.
///
/// Writes are jobs. The writer takes every job queued when it wakes, runs them in one transaction
/// (one failing job does not sink the others: see `Writer.commit`), makes them durable, and only then
/// calls the jobs' completions: every caller learns of its write after it is durable, and many
/// concurrent writes share one commit. A batch of only registrations and tracking hits is made durable
/// in the redo log and committed with later batches (see ``RedoLog``); any other batch commits. WAL with
/// `synchronous=NORMAL`: a committed transaction, like the redo log, survives the process being killed
/// (it may not survive a power cut).
///
/// Reads use a pool of connections that see the last commit, and never wait for the writer. With an
/// in-memory database there is only the writer's connection, so reads run on the writer thread.
package final class Store: Sendable {
    /// The database path, or nil for an in-memory store.
    package let path: String?
    private let writer: Writer
    private let readers: ReaderPool?
    private let applications = ApplicationCache()
    private let journal: JournalLog
    /// Where every committed batch's changes go, right after the commit (see ``ChangeSink``).
    package let sink = ChangeSink()
    /// What the start found damaged in the request journal's files and skipped.
    package var journalDamage: [JournalDamage] { journal.damage }
    /// What the start found in the redo log but could not apply again (see ``RedoLog``), and skipped.
    package let redoSkipped: [String]

    /// The checkpoints' syncs reach the disk itself on macOS, where `fsync` stops at the drive's cache
    /// (SQLite: `F_FULLFSYNC`); both pragmas do nothing elsewhere.
    static let fullSyncPragmas = "PRAGMA fullfsync=ON; PRAGMA checkpoint_fullfsync=ON"

    /// Opens the database at `path` (nil = in memory), runs the migrations, starts the writer.
    ///
    /// - Parameters:
    ///   - checkpoints: when the WAL is copied into the database file and started again.
    ///   - journalLimit: most entries the request journal keeps; its files are `path` + `-requests`
    ///     and `-requests.old` (see ``JournalLog``).
    ///   - journalBytes: about the most bytes those two files take (the oldest entries go first).
    ///   - commitDelay: how long answered registrations and hits may wait for their commit in the redo
    ///     log, `path` + `-redo` (see ``RedoLog``).
    package init(
        path: String?, checkpoints: CheckpointPolicy = CheckpointPolicy(), journalLimit: Int = 10_000,
        journalBytes: Int = 256 << 20, commitDelay: DispatchTimeInterval = .milliseconds(50)
    ) throws {
        self.path = path
        let connection = try SQLiteConnection(path: path ?? ":memory:")
        if path != nil {
            let mode = try connection.scalar("PRAGMA journal_mode=WAL").text
            guard mode == "wal" else {
                throw SQLiteError(code: 1, message: "cannot switch \(path!) to WAL mode (got \(mode ?? "nothing"))")
            }
        }
        // The writer's page cache: 8 MiB (why not more: docs/performance.md, "Settings chosen by measurement").
        try connection.execute(
            "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-8192; " + Self.fullSyncPragmas)
        journal = try JournalLog(path: path.map { $0 + "-requests" }, limit: journalLimit, byteBudget: journalBytes)
        try journal.importTable(from: connection)  // before migration 0013 drops that table
        try SQLiteMigrator.migrate(connection, Schema.migrations, current: Schema.current)
        readers = path.map { ReaderPool(path: $0) }
        // Checkpoints run on their own thread, never inside a commit (see Checkpointer).
        let checkpointer = try path.map { try Checkpointer(path: $0, policy: checkpoints) }
        if let checkpointer { connection.afterEachCommit { checkpointer.walHas(pages: $0) } }
        let redo = try path.map { try RedoLog(path: $0 + "-redo") }
        let journal = self.journal
        redoSkipped = try redo.map { try Writer.applyAgain($0, on: connection, journal: journal) } ?? []
        writer = Writer(
            connection: connection, journal: journal, applications: applications, checkpointer: checkpointer,
            sink: sink, redo: redo, commitDelay: commitDelay)
    }

    /// The application with `integrationKey`, or nil, as last committed. Answered from memory: the
    /// applications are read once and read again after a batch that wrote them commits (request
    /// validation asked SQLite for each registration before).
    package func application(key integrationKey: String) throws -> StoredApplication? {
        if let known = applications.current() { return known[integrationKey] }
        let generation = applications.generation()
        let all = try read { try $0.storedApplications() }
        let byKey = Dictionary(all.map { ($0.application.integrationKey, $0) }, uniquingKeysWith: { first, _ in first })
        applications.keep(byKey, readAt: generation)
        return byKey[integrationKey]
    }

    /// Queues `work` for the next batch; `completion` gets its result once the batch is durable
    /// (committed, or in the redo log: see ``RedoLog``), on the writer thread (keep it short: hand the
    /// result on). `work` runs again when another job of its batch fails (see `Writer.commit`), so it
    /// only writes through the transaction. `commits`: the batch is committed, whatever it wrote.
    package func write<T: Sendable>(
        commits: Bool = false, _ work: @escaping @Sendable (StoreTransaction) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        writer.enqueue(
            Writer.Job(
                run: { transaction in
                    let value = try work(transaction)
                    return { completion(.success(value)) }
                },
                fail: { completion(.failure($0)) }, commits: commits))
    }

    /// Gives the space of deleted rows back to the file system when they left much of the file free (a
    /// quarter, and 4 MiB at least): `VACUUM` between two batches of writes, which wait for it, then a
    /// checkpoint that truncates the WAL. Returns the bytes the database file shrank by.
    package func reclaimSpace() throws -> Int64 {
        guard path != nil else { return 0 }
        let result = Mutex<Result<Int64, any Error>>(.success(0))
        writer.enqueue(
            Writer.Job(
                run: { _ in {} }, fail: { error in result.withLock { $0 = .failure(error) } },
                betweenTransactions: { connection in
                    let pages = try connection.integer("PRAGMA page_count")
                    let free = try connection.integer("PRAGMA freelist_count")
                    let pageSize = try connection.integer("PRAGMA page_size")
                    if free * 4 >= pages && free * pageSize >= 4 << 20 {
                        try connection.execute("VACUUM")
                        // The checkpoint thread may be copying meanwhile (busy): a few more tries.
                        for _ in 0..<100 {
                            let busy = try connection.query("PRAGMA wal_checkpoint(TRUNCATE)").first?[0].integer
                            if busy == 0 { break }
                            usleep(10_000)
                        }
                        let shrunk = (pages - (try connection.integer("PRAGMA page_count"))) * pageSize
                        result.withLock { $0 = .success(shrunk) }
                    }
                    return {}
                }))
        // Jobs run in the order they came: once the next write is committed, this one's turn is over.
        try writeAndWait { _ in }
        return try result.withLock { $0 }.get()
    }

    /// Runs `work` in the next batch and waits until it is durable (committed, when `commits`).
    package func writeAndWait<T: Sendable>(
        commits: Bool = false, _ work: @escaping @Sendable (StoreTransaction) throws -> T
    ) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<T, any Error>?>(nil)
        write(commits: commits, work) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// Runs `work` on a connection that sees every write answered so far: when answered writes wait in
    /// the writer's open transaction (see ``RedoLog``), it has them committed first (not on the writer's own
    /// thread, which would wait for itself).
    package func read<T: Sendable>(_ work: @escaping @Sendable (StoreReader) throws -> T) throws -> T {
        guard let readers else {
            return try writeAndWait { try work($0.reader) }
        }
        if writer.hasUncommitted.load(ordering: .acquiring) && !writer.isCurrentThread {
            try writeAndWait(commits: true) { _ in }
        }
        return try readers.withConnection { [journal] in try work(StoreReader(connection: $0, journal: journal)) }
    }

    /// The text of every statement the writer's and the idle readers' connections prepared so far.
    package func preparedStatements() throws -> Set<String> {
        let written = try writeAndWait { $0.connection.preparedStatements }
        return Set(written + (readers?.preparedStatements() ?? []))
    }

    /// Finishes the queued writes, checkpoints the WAL into the database file and closes.
    package func close() {
        writer.close()
        readers?.close()
    }
}

extension Store {
    /// The single writer thread and its queue. The connection is confined to the writer thread;
    /// the queue is shared under `queue`'s mutex, so the class is `@unchecked Sendable`.
    ///
    /// A batch of registrations and tracking hits only is not committed on its own: its operations go
    /// to the redo log (one `write`), its requests are answered, and the transaction stays open for the
    /// batches after it, until its commit delay passed, ``uncommittedLimit`` operations wait, a read asks
    /// (``Store/read(_:)``) or a batch writes anything else. See ``RedoLog``.
    fileprivate final class Writer: @unchecked Sendable {
        struct Job: Sendable {
            /// Runs the write; returns what to call after the commit.
            let run: @Sendable (StoreTransaction) throws -> @Sendable () -> Void
            let fail: @Sendable (any Error) -> Void
            /// Work done between two transactions instead (`VACUUM` cannot run inside one), in its turn;
            /// returns what to call after it. `run` is not used then.
            var betweenTransactions: (@Sendable (SQLiteConnection) throws -> @Sendable () -> Void)?
            /// Whether its batch commits, whatever it wrote (a read that must see every answered write).
            var commits = false
        }

        /// How long answered operations may wait in the open transaction: what a reader of the database
        /// file from outside (the `sqlite3` shell) may be behind by.
        private let commitDelay: DispatchTimeInterval
        /// How many may wait.
        static let uncommittedLimit = 4096

        private let connection: SQLiteConnection
        private let journal: JournalLog
        private let applications: ApplicationCache
        private let checkpointer: Checkpointer?
        private let queue = Mutex<(jobs: [Job], closing: Bool)>(([], false))
        /// Where the rows noted in a batch go after its commit.
        private let sink: ChangeSink
        /// Where the operations of uncommitted batches are made durable (nil: an in-memory store, which
        /// commits every batch).
        private let redo: RedoLog?
        /// The operations answered since the last commit, in order: in the open transaction and the redo log.
        private var uncommitted: [RedoOperation] = []
        /// When the open transaction began; nil while none is open.
        private var openedAt: DispatchTime?
        /// Whether answered operations wait in the open transaction: a read then asks for a commit first.
        let hasUncommitted = Atomic<Bool>(false)
        private let threadID = Mutex<pthread_t?>(nil)
        private let wakeup = DispatchSemaphore(value: 0)
        private var thread: SystemThread?
        private static let batchLimit = 2048
        private static let saveWatermark = """
            INSERT INTO store_counters (name, value) VALUES ('redo-applied', ?)
            ON CONFLICT (name) DO UPDATE SET value = excluded.value
            """

        init(
            connection: SQLiteConnection, journal: JournalLog, applications: ApplicationCache,
            checkpointer: Checkpointer?, sink: ChangeSink, redo: RedoLog?, commitDelay: DispatchTimeInterval
        ) {
            self.commitDelay = commitDelay
            self.sink = sink
            self.connection = connection
            self.journal = journal
            self.applications = applications
            self.checkpointer = checkpointer
            self.redo = redo
            thread = SystemThread(name: "store-writer") { [self] in run() }
        }

        /// Applies what `redo` holds beyond the last commit (answered, never committed), commits, and
        /// empties it. Returns what could not be applied.
        static func applyAgain(_ redo: RedoLog, on connection: SQLiteConnection, journal: JournalLog) throws
            -> [String]
        {
            let applied =
                try connection.scalar("SELECT value FROM store_counters WHERE name = 'redo-applied'").integer ?? 0
            redo.continueAfter(applied)
            guard !redo.found.isEmpty else { return [] }
            let operations = redo.found.filter { $0.sequence > applied }
            var skipped: [String] = []
            if let last = operations.last {
                try connection.execute("BEGIN IMMEDIATE")
                do {
                    skipped = try StoreTransaction(connection: connection, journal: journal)
                        .applyAgain(operations.map(\.operation))
                    try connection.query(saveWatermark, [last.sequence])
                    try connection.execute("COMMIT")
                } catch {
                    try? connection.execute("ROLLBACK")
                    throw error
                }
            }
            try redo.clear()
            return skipped
        }

        func enqueue(_ job: Job) {
            // Only the job that finds the queue empty wakes the writer: it takes every job queued when it
            // looks (and wakes itself again when it leaves some), so one signal per batch is enough, and
            // the writer does not come back for a queue it already emptied.
            let (accepted, wakes) = queue.withLock { state in
                if state.closing { return (false, false) }
                state.jobs.append(job)
                return (true, state.jobs.count == 1)
            }
            if !accepted {
                job.fail(StoreError.closed)
            } else if wakes {
                wakeup.signal()
            }
        }

        /// Whether the caller runs on the writer thread (a subscriber of the sink, a completion).
        var isCurrentThread: Bool {
            threadID.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        }

        func close() {
            let first = queue.withLock { state in
                defer { state.closing = true }
                return !state.closing
            }
            guard first else { return }
            wakeup.signal()
            thread?.join()
            checkpointer?.close()
            try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }

        private func run() {
            threadID.withLock { $0 = pthread_self() }
            while true {
                if let openedAt {
                    if wakeup.wait(timeout: openedAt + commitDelay) == .timedOut {
                        commitOpenTransaction()
                        continue
                    }
                } else {
                    wakeup.wait()
                }
                let (jobs, closing) = queue.withLock { state in
                    let batch = Array(state.jobs.prefix(Self.batchLimit))
                    state.jobs.removeFirst(batch.count)
                    if !state.jobs.isEmpty { wakeup.signal() }
                    return (batch, state.closing && state.jobs.isEmpty)
                }
                commitInTurn(jobs)
                if closing {
                    commitOpenTransaction()
                    return
                }
            }
        }

        /// Commits the jobs up to each one that runs between transactions, then runs that one.
        private func commitInTurn(_ jobs: [Job]) {
            // Nearly every batch is writes alone: no second array for it.
            guard jobs.contains(where: { $0.betweenTransactions != nil }) else {
                if !jobs.isEmpty { commit(jobs) }
                return
            }
            var batch: [Job] = []
            for job in jobs {
                guard let work = job.betweenTransactions else {
                    batch.append(job)
                    continue
                }
                if !batch.isEmpty { commit(batch) }
                batch.removeAll()
                commitOpenTransaction()
                do {
                    try work(connection)()
                } catch {
                    job.fail(error)
                }
            }
            if !batch.isEmpty { commit(batch) }
        }

        private func forgetApplicationsIfWritten() {
            guard connection.applicationsChanged else { return }
            connection.applicationsChanged = false
            applications.invalidate()
        }

        /// Begins a transaction unless one is open; fails `jobs` when it cannot.
        private func beginIfNeeded(failing jobs: [Job]) -> Bool {
            guard openedAt == nil else { return true }
            do {
                try connection.query("BEGIN IMMEDIATE")
            } catch {
                for job in jobs { job.fail(error) }
                return false
            }
            openedAt = .now()
            return true
        }

        /// Runs `jobs` in the open transaction (or a new one). Most batches have no failing job, so they
        /// run without a savepoint per job (two statements fewer per request); when a job throws, the
        /// transaction rolls back, the operations answered before are applied again, and the batch runs
        /// again with a savepoint around each job, so only the failing ones fail. A job may therefore run
        /// twice: it must only write through the transaction (its effects belong in the completion it
        /// returns). A batch that wrote only what the redo log can apply again is not committed (see
        /// ``Writer``).
        private func commit(_ jobs: [Job]) {
            defer { forgetApplicationsIfWritten() }  // a failed batch changed nothing, but clears the flag
            let transaction = StoreTransaction(connection: connection, journal: journal)
            // The transaction statements are prepared once and reused (`query` caches them): parsing their
            // text for every job showed as an eighth of a tracking hit's instructions.
            guard beginIfNeeded(failing: jobs) else { return }
            let changesBefore = connection.totalChanges
            var completions: [@Sendable () -> Void] = []
            completions.reserveCapacity(jobs.count)
            do {
                for job in jobs { completions.append(try job.run(transaction)) }
            } catch {
                rollBack()
                return commitEachInItsSavepoint(jobs)
            }
            let onlyRedoable =
                redo != nil && !connection.redoOperations.isEmpty
                && connection.totalChanges - changesBefore == connection.redoRowChanges
            let defers =
                onlyRedoable && uncommitted.count < Self.uncommittedLimit && !jobs.contains { $0.commits }
            finish(jobs, completions: completions, failures: [], defers: defers)
        }

        /// Commits the open transaction, if any: what waits in it was answered already.
        private func commitOpenTransaction() {
            guard openedAt != nil else { return }
            finish([], completions: [], failures: [], defers: false)
        }

        /// Rolls the open transaction back (what the connection noted of it too), then applies the
        /// operations answered since the last commit again, in a new transaction. They are in the redo
        /// log; a database that refuses them now stops the server rather than lose them from its view
        /// (the next start applies them from the log).
        private func rollBack() {
            connection.journalChanges.removeAll(keepingCapacity: true)
            connection.recordedChanges.removeAll()
            connection.redoOperations.removeAll()
            connection.redoRowChanges = 0
            try? connection.execute("ROLLBACK")
            openedAt = nil
            guard !uncommitted.isEmpty else { return }
            do {
                try connection.query("BEGIN IMMEDIATE")
                openedAt = .now()
                _ = try StoreTransaction(connection: connection, journal: journal).applyAgain(uncommitted)
            } catch {
                fatalError(
                    "the store cannot apply the \(uncommitted.count) answered writes of its redo log again (\(error)); "
                        + "the next start applies them")
            }
        }

        private func commitEachInItsSavepoint(_ jobs: [Job]) {
            let transaction = StoreTransaction(connection: connection, journal: journal)
            var completions: [@Sendable () -> Void] = []
            var failures: [(Job, any Error)] = []
            guard beginIfNeeded(failing: jobs) else { return }
            for job in jobs {
                let recorded = connection.recordedChanges.count
                let journaled = connection.journalChanges.count
                do {
                    try connection.query("SAVEPOINT job")
                    do {
                        completions.append(try job.run(transaction))
                        try connection.query("RELEASE job")
                    } catch {
                        // What the job appended or noted is gone again.
                        connection.journalChanges.removeSubrange(journaled...)
                        connection.recordedChanges.removeSubrange(recorded...)
                        try connection.query("ROLLBACK TO job")
                        try connection.query("RELEASE job")
                        failures.append((job, error))
                    }
                } catch {
                    failures.append((job, error))
                }
            }
            finish(jobs, completions: completions, failures: failures, defers: false)
        }

        /// The journal's write, then the redo log's (`defers`) or the commit, then each job's completion
        /// (or failure). The journal's bytes are written first, so that a batch whose journal cannot be
        /// written fails as a whole; a redo log or commit that fails cuts them off again.
        private func finish(
            _ jobs: [Job], completions: [@Sendable () -> Void],
            failures: [(Job, any Error)], defers: Bool
        ) {
            var written: JournalLog.Written?
            do {
                if !connection.journalChanges.isEmpty {
                    written = try journal.write(connection.journalChanges)
                    connection.journalChanges.removeAll(keepingCapacity: true)
                }
                if defers, let redo {
                    try redo.append(connection.redoOperations)
                    uncommitted += connection.redoOperations
                    hasUncommitted.store(true, ordering: .releasing)
                } else {
                    if !uncommitted.isEmpty, let redo {
                        try connection.query(Self.saveWatermark, [redo.nextSequence - 1])
                    }
                    try connection.query("COMMIT")
                    openedAt = nil
                }
            } catch {
                if let written { journal.discard(written) }
                rollBack()
                for job in jobs { job.fail(error) }
                return
            }
            connection.redoOperations.removeAll(keepingCapacity: true)
            connection.redoRowChanges = 0
            if !defers && !uncommitted.isEmpty {
                uncommitted.removeAll(keepingCapacity: true)
                hasUncommitted.store(false, ordering: .releasing)
                // Committed with its watermark: a log not emptied now is read again at start and skipped.
                try? redo?.clear()
            }
            if let written { journal.publish(written) }
            forgetApplicationsIfWritten()  // before any completion: "created" means the next request sees it
            // Before any completion too: a client that saw its answer finds its change handed on (to the
            // waiters, the stream).
            if !connection.recordedChanges.isEmpty {
                let changes = connection.recordedChanges
                connection.recordedChanges = []
                sink.hand(changes)
            }
            for completion in completions { completion() }
            for (job, error) in failures { job.fail(error) }
            if !defers { checkpointer?.finishIfLong(on: connection) }
        }
    }

    /// The committed applications by integration key, kept until a commit changes them. A copy read
    /// while a commit changed the table is not kept: `generation` moves on every such commit.
    fileprivate final class ApplicationCache: Sendable {
        private let state = Mutex<(generation: UInt64, byKey: [String: StoredApplication]?)>((0, nil))

        func current() -> [String: StoredApplication]? { state.withLock { $0.byKey } }
        func generation() -> UInt64 { state.withLock { $0.generation } }

        func keep(_ byKey: [String: StoredApplication], readAt generation: UInt64) {
            state.withLock { if $0.generation == generation { $0.byKey = byKey } }
        }

        func invalidate() {
            state.withLock {
                $0.generation &+= 1
                $0.byKey = nil
            }
        }
    }

    /// Reader connections, opened on demand and reused.
    fileprivate final class ReaderPool: Sendable {
        /// A connection is used by one thread at a time: it is taken out of `idle` under the lock and
        /// put back after use, hence `@unchecked Sendable`.
        private final class Pooled: @unchecked Sendable {
            let connection: SQLiteConnection
            init(_ connection: SQLiteConnection) { self.connection = connection }
        }

        private let path: String
        private let idle = Mutex<[Pooled]>([])
        private static let keptIdle = 8

        init(path: String) {
            self.path = path
        }

        func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
            let pooled = try idle.withLock { $0.popLast() } ?? openConnection()
            defer {
                idle.withLock { pool in
                    if pool.count < Self.keptIdle { pool.append(pooled) }
                }
            }
            return try body(pooled.connection)
        }

        private func openConnection() throws -> Pooled {
            let connection = try SQLiteConnection(path: path)
            try connection.execute("PRAGMA query_only=ON; PRAGMA mmap_size=268435456")
            return Pooled(connection)
        }

        func preparedStatements() -> [String] {
            idle.withLock { pool in pool.flatMap { $0.connection.preparedStatements } }
        }

        func close() {
            idle.withLock { $0.removeAll() }
        }
    }
}
