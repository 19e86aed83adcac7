package import CampaignMockJournal
import CampaignMockModel
import CampaignMockSystem
import Dispatch
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
/// concurrent writes share one commit. WAL with `synchronous=NORMAL`: a committed transaction survives
/// the process being killed; a power cut may lose the commits since the WAL was last synced (see
/// ``Checkpointer``).
///
/// Reads use a pool of connections that see the last commit, and never wait for the writer nor commit
/// anything: a request is answered after its commit, so a read that follows an answer sees its write. With
/// an in-memory database there is only the writer's connection, so reads run on the writer thread.
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
    /// What the start did with a redo log an older build left (see ``LeftoverRedoLog``): applied, skipped
    /// as damaged, moved aside. Each is a line for the log.
    package let leftoverRedoLog: [LeftoverRedoLog.Note]

    /// The format of the data directory this build writes: 1, every answer committed (no redo log). A
    /// database marked with a higher one is refused with ``StoreError/newerFormat(found:known:)``.
    package static let dataFormat: Int64 = 1

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
    package init(
        path: String?, checkpoints: CheckpointPolicy = CheckpointPolicy(), journalLimit: Int = 10_000,
        journalBytes: Int = 256 << 20
    ) throws {
        self.path = path
        let connection = try SQLiteConnection(path: path ?? ":memory:")
        // The data directory's format, said by the database (`PRAGMA user_version`): a build refuses one it
        // does not know before it touches anything of it (the journal's files included), and marks an older
        // one as its own after the migrations.
        let format = try connection.integer("PRAGMA user_version")
        guard format <= Self.dataFormat else { throw StoreError.newerFormat(found: format, known: Self.dataFormat) }
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
        if format < Self.dataFormat { try connection.execute("PRAGMA user_version = \(Self.dataFormat)") }
        readers = path.map { ReaderPool(path: $0) }
        // Checkpoints run on their own thread, never inside a commit (see Checkpointer).
        let checkpointer = try path.map { try Checkpointer(path: $0, policy: checkpoints) }
        if let checkpointer { connection.afterEachCommit { checkpointer.walHas(pages: $0) } }
        let journal = self.journal
        leftoverRedoLog =
            try path.map { try LeftoverRedoLog.apply(at: $0 + "-redo", on: connection, journal: journal) } ?? []
        writer = Writer(
            connection: connection, journal: journal, applications: applications, checkpointer: checkpointer,
            sink: sink)
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

    /// Queues `work` for the next batch; `completion` gets its result once the batch is committed, on the
    /// writer thread (keep it short: hand the result on). `work` runs again when another job of its batch
    /// fails (see `Writer.commit`), so it only writes through the transaction.
    package func write<T: Sendable>(
        _ work: @escaping @Sendable (StoreTransaction) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        writer.enqueue(
            Writer.Job(
                run: { transaction in
                    let value = try work(transaction)
                    return { completion(.success(value)) }
                },
                fail: { completion(.failure($0)) }))
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

    /// Runs `work` in the next batch and waits until it is committed.
    package func writeAndWait<T: Sendable>(_ work: @escaping @Sendable (StoreTransaction) throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<T, any Error>?>(nil)
        write(work) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// Nanoseconds the writer has waited for work since the store opened (the sweeps read how busy the
    /// writes keep it).
    package var writerIdleNanoseconds: UInt64 { writer.idleNanoseconds.load(ordering: .relaxed) }

    /// Runs `work` on a reader connection, which sees the last commit: every write answered so far (an
    /// answer is sent after its commit). It neither waits for the writer nor commits.
    package func read<T: Sendable>(_ work: @escaping @Sendable (StoreReader) throws -> T) throws -> T {
        guard let readers else {
            return try writeAndWait { try work($0.reader) }
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
    fileprivate final class Writer: @unchecked Sendable {
        struct Job: Sendable {
            /// Runs the write; returns what to call after the commit.
            let run: @Sendable (StoreTransaction) throws -> @Sendable () -> Void
            let fail: @Sendable (any Error) -> Void
            /// Work done between two transactions instead (`VACUUM` cannot run inside one), in its turn;
            /// returns what to call after it. `run` is not used then.
            var betweenTransactions: (@Sendable (SQLiteConnection) throws -> @Sendable () -> Void)?
        }

        private let connection: SQLiteConnection
        private let journal: JournalLog
        private let applications: ApplicationCache
        private let checkpointer: Checkpointer?
        private let queue = Mutex<(jobs: [Job], closing: Bool)>(([], false))
        /// Where the rows noted in a batch go after its commit.
        private let sink: ChangeSink
        private let wakeup = DispatchSemaphore(value: 0)
        /// Nanoseconds the writer has waited for work since it started: what the writes left of its time.
        let idleNanoseconds = Atomic<UInt64>(0)
        private var thread: SystemThread?
        private static let batchLimit = 2048

        init(
            connection: SQLiteConnection, journal: JournalLog, applications: ApplicationCache,
            checkpointer: Checkpointer?, sink: ChangeSink
        ) {
            self.sink = sink
            self.connection = connection
            self.journal = journal
            self.applications = applications
            self.checkpointer = checkpointer
            thread = SystemThread(name: "store-writer") { [self] in run() }
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
            // The queue's other array: the queue and it trade places when the writer takes a batch, so
            // that neither is allocated again for each batch (an array of a batch's jobs is past 1 KiB,
            // where each malloc also sorts the allocator's fast lists).
            var spare: [Job] = []
            while true {
                let waiting = Clock.monotonicNanoseconds()
                wakeup.wait()
                idleNanoseconds.add(Clock.monotonicNanoseconds() - waiting, ordering: .relaxed)
                var jobs = spare
                spare = []
                let closing = queue.withLock { state in
                    if state.jobs.count <= Self.batchLimit {
                        swap(&jobs, &state.jobs)
                    } else {
                        jobs.append(contentsOf: state.jobs.prefix(Self.batchLimit))
                        state.jobs.removeFirst(Self.batchLimit)
                        wakeup.signal()
                    }
                    return state.closing && state.jobs.isEmpty
                }
                commitInTurn(jobs)
                jobs.removeAll(keepingCapacity: true)
                spare = jobs
                if closing { return }
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

        /// Begins a transaction; fails `jobs` when it cannot.
        private func begin(failing jobs: [Job]) -> Bool {
            do {
                try connection.query("BEGIN IMMEDIATE")
            } catch {
                for job in jobs { job.fail(error) }
                return false
            }
            return true
        }

        /// Runs `jobs` in one transaction and commits it. Most batches have no failing job, so they run
        /// without a savepoint per job (two statements fewer per request); when a job throws, the
        /// transaction rolls back and the batch runs again with a savepoint around each job, so only the
        /// failing ones fail. A job may therefore run twice: it must only write through the transaction
        /// (its effects belong in the completion it returns).
        private func commit(_ jobs: [Job]) {
            defer { forgetApplicationsIfWritten() }  // a failed batch changed nothing, but clears the flag
            let transaction = StoreTransaction(
                connection: connection, journal: journal, recordsDeviceRows: sink.wantsDeviceRows)
            // The transaction statements are prepared once and reused (`query` caches them): parsing their
            // text for every job showed as an eighth of a tracking hit's instructions.
            guard begin(failing: jobs) else { return }
            var completions: [@Sendable () -> Void] = []
            completions.reserveCapacity(jobs.count)
            do {
                for job in jobs { completions.append(try job.run(transaction)) }
            } catch {
                rollBack()
                return commitEachInItsSavepoint(jobs)
            }
            finish(jobs, completions: completions, failures: [])
        }

        /// Rolls the open transaction back, and what the connection noted of it.
        private func rollBack() {
            connection.journalChanges.removeAll(keepingCapacity: true)
            connection.recordedChanges.removeAll()
            try? connection.execute("ROLLBACK")
        }

        private func commitEachInItsSavepoint(_ jobs: [Job]) {
            let transaction = StoreTransaction(
                connection: connection, journal: journal, recordsDeviceRows: sink.wantsDeviceRows)
            var completions: [@Sendable () -> Void] = []
            var failures: [(Job, any Error)] = []
            guard begin(failing: jobs) else { return }
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
            finish(jobs, completions: completions, failures: failures)
        }

        /// The journal's write, then the commit, then each job's completion (or failure). The journal's
        /// bytes are written first, so that a batch whose journal cannot be written fails as a whole; a
        /// commit that fails cuts them off again.
        private func finish(_ jobs: [Job], completions: [@Sendable () -> Void], failures: [(Job, any Error)]) {
            var written: JournalLog.Written?
            do {
                if !connection.journalChanges.isEmpty {
                    written = try journal.write(connection.journalChanges)
                    connection.journalChanges.removeAll(keepingCapacity: true)
                }
                try connection.query("COMMIT")
            } catch {
                if let written { journal.discard(written) }
                rollBack()
                for job in jobs { job.fail(error) }
                return
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
            checkpointer?.finishIfLong(on: connection)
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
