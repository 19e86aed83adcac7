package import CampaignMockSystem
import Dispatch
import Synchronization

/// Sweeps the store for what the ``RetentionPolicy`` no longer keeps: a second after the start, then as
/// ``RetentionPace`` says, `intervalMilliseconds` apart at most. Each sweep is one bounded job of the
/// store's writer (see ``StoreTransaction/sweep(_:now:historyAfter:settledAt:batch:)``).
package final class RetentionSweeper: Sendable {
    private let store: Store
    private let policy: RetentionPolicy
    private let pace: RetentionPace
    private let intervalMilliseconds: Int
    private let logger: Logger
    private let queue = DispatchQueue(label: "retention")
    private let stopped = Atomic<Bool>(false)
    /// What the sweeps carry from one to the next (the sweeper's queue only).
    private struct Progress {
        /// The newest registration whose device's history a sweep checked.
        var historyCheckedUpTo: Int64 = 0
        /// The newest writes the last sweep saw (``RetentionSweep/newestWrites``), and when it began.
        var newestWrites: [Int64] = []
        var lastStarted: UInt64 = 0
        /// Whether the last sweep left nothing to delete.
        var settled = false
        /// The next sweep's batch, a fraction of the largest (``RetentionPace/batch(pressure:)``).
        var batch = 1.0
        /// The writer's idle nanoseconds when the last sweep began, and how long it took.
        var lastIdle: UInt64 = 0
        var lastTook: UInt64 = 0
        /// What the sweeps deleted since the last log line, and when that was: one line a minute at
        /// most, once the store is within its caps.
        var deleted = RetentionSweep()
        var loggedAt: UInt64 = 0
    }
    private let progress = Mutex(Progress())
    /// The wait after a sweep that failed (a full disk, say): one error line a minute, not a second.
    private static let afterAFailureMilliseconds = 60_000

    package init(store: Store, policy: RetentionPolicy, intervalMilliseconds: Int, logger: Logger) {
        self.store = store
        self.policy = policy
        self.pace = RetentionPace(policy: policy, longestWaitMilliseconds: intervalMilliseconds)
        self.intervalMilliseconds = intervalMilliseconds
        self.logger = logger
        if policy.events > 0 || policy.devices > 0 || policy.days > 0 || policy.historyPerDevice > 0 {
            schedule(after: min(1000, intervalMilliseconds))
        }
    }

    package func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    private func schedule(after milliseconds: Int) {
        queue.asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [self] in
            guard !stopped.load(ordering: .relaxed) else { return }
            let (after, settledAt, batch) = progress.withLock {
                ($0.historyCheckedUpTo, $0.settled ? $0.newestWrites : [], $0.batch)
            }
            store.write { [policy, store] transaction in
                let (started, idle) = (Clock.monotonicNanoseconds(), store.writerIdleNanoseconds)
                let sweep = try transaction.sweep(policy, historyAfter: after, settledAt: settledAt, batch: batch)
                return Outcome(sweep: sweep, started: started, took: Clock.monotonicNanoseconds() - started, idle: idle)
            } completion: { [self] outcome in
                schedule(after: next(after: outcome))
            }
        }
    }

    /// A sweep, when it began and how long it took, and the writer's idle nanoseconds when it began.
    private struct Outcome: Sendable {
        var sweep: RetentionSweep
        var started: UInt64
        var took: UInt64
        var idle: UInt64
    }

    /// When the next sweep runs, given how this one went.
    private func next(after result: Result<Outcome, any Error>) -> Int {
        let outcome: Outcome
        switch result {
        case .success(let success): outcome = success
        case .failure(let error):
            logger.error("retention: the sweep failed: \(error)")
            return max(intervalMilliseconds, Self.afterAFailureMilliseconds)
        }
        let (sweep, started) = (outcome.sweep, outcome.started)
        let (idle, deleted, growth, pressure) = progress.withLock { progress in
            let idle = progress.newestWrites == sweep.newestWrites
            // Registrations and events written since the last sweep, and in how long (none known at first).
            let growth =
                progress.newestWrites.count == 2 && sweep.newestWrites.count == 2
                ? RetentionPace.Growth(
                    registrations: sweep.newestWrites[0] - progress.newestWrites[0],
                    events: sweep.newestWrites[1] - progress.newestWrites[1],
                    nanoseconds: started - progress.lastStarted)
                : nil
            progress.historyCheckedUpTo = sweep.historyCheckedUpTo
            progress.newestWrites = sweep.newestWrites
            progress.settled = !sweep.more
            progress.deleted.events += sweep.events
            progress.deleted.devices += sweep.devices
            progress.deleted.registrations += sweep.registrations
            var deleted = RetentionSweep()
            if !sweep.more && !progress.deleted.isEmpty && started - progress.loggedAt >= 60_000_000_000 {
                (deleted, progress.deleted, progress.loggedAt) = (progress.deleted, RetentionSweep(), started)
            }
            // How busy the writes kept the writer from the end of the last sweep to the start of this one
            // (none known at first).
            let between = started &- progress.lastStarted &- progress.lastTook
            let pressure =
                progress.lastStarted == 0 || between > started
                ? 0
                : RetentionPace.pressure(
                    busy: RetentionPace.busy(between: between, idle: outcome.idle &- progress.lastIdle))
            (progress.lastStarted, progress.lastIdle, progress.lastTook) = (started, outcome.idle, outcome.took)
            progress.batch = sweep.more ? RetentionPace.batch(pressure: pressure) : 1
            return (idle, deleted, growth, pressure)
        }
        guard sweep.more else {
            if !deleted.isEmpty {
                logger.info(
                    "retention: deleted \(deleted.events) events, \(deleted.devices) devices and "
                        + "\(deleted.registrations) history rows beyond --retain-events \(policy.events), "
                        + "--retain-devices \(policy.devices), --retain-days \(policy.days)")
            }
            return growth.map(pace.wait(within:)) ?? intervalMilliseconds
        }
        return idle ? 1 : pace.pause(after: outcome.took, share: RetentionPace.share(pressure: pressure))
    }
}

/// When the sweeps run and how much each takes, so that the store stays close to its caps under a steady
/// load and comes back to them after a flood, without taking from a flood the writer's time its writes need.
///
/// - Within its caps, the store is looked at again when it may have grown by ``lookAgainAt`` of a cap at
///   the pace it grew since the last look (every registration counted as a new device): 10 ms to the
///   longest wait apart.
/// - Over them, sweeps follow one another, with a pause after each that gives them a share of the writer's
///   time, and each takes a batch of a size, both set by the writes' ``pressure(busy:)``: how much of the
///   writer's time they took since the last sweep. With a fifth or less (a steady load, or none),
///   ``fullShare`` and the largest batch (``RetentionPolicy/deviceBatch``, ``RetentionPolicy/eventBatch``);
///   with four fifths or more (a flood), ``baseShare`` and a tenth of the batch, so a write queued behind
///   a sweep waits a millisecond or two and the flood keeps nine tenths of the writer; in between, in
///   proportion. A flood can so take the store past its caps; the sweeps take it back once it stops.
package struct RetentionPace: Sendable, Equatable {
    /// The sweeps' share of the writer's time under a flood.
    package static let baseShare = 0.1
    /// Their share while the writes leave the writer mostly idle.
    package static let fullShare = 0.5
    /// A sweep's batch under a flood, as a fraction of the largest.
    package static let smallestBatch = 0.1
    /// How much the store may grow (a fraction of a cap) before the next look, while within its caps.
    package static let lookAgainAt = 0.05
    /// The shortest wait between two looks.
    package static let shortestWaitMilliseconds = 10

    package var policy: RetentionPolicy
    /// The longest wait between two sweeps, whatever the pace.
    package var longestWaitMilliseconds: Int

    /// What was written between the starts of two sweeps, and the time between them.
    package struct Growth: Sendable, Equatable {
        package var registrations: Int64
        package var events: Int64
        package var nanoseconds: UInt64
    }

    /// The fraction of `nanoseconds` the writer was busy, having been idle for `idle` of them.
    package static func busy(between nanoseconds: UInt64, idle: UInt64) -> Double {
        nanoseconds == 0 ? 0 : 1 - min(1, Double(idle) / Double(nanoseconds))
    }

    /// How hard the writes press on the writer, from 0 to 1, by the fraction of its time they kept it
    /// `busy`: 0 at a fifth or less, 1 at four fifths or more.
    package static func pressure(busy: Double) -> Double {
        min(1, max(0, (busy - 0.2) / 0.6))
    }

    /// The sweeps' share of the writer's time under `pressure`.
    package static func share(pressure: Double) -> Double {
        fullShare - (fullShare - baseShare) * pressure
    }

    /// The next sweep's batch under `pressure`, as a fraction of the largest.
    package static func batch(pressure: Double) -> Double {
        1 - (1 - smallestBatch) * pressure
    }

    /// Milliseconds from the end of a sweep that took `nanoseconds` and left more to delete to the next
    /// one, so that the sweeps take `share` of the writer's time.
    package func pause(after nanoseconds: UInt64, share: Double) -> Int {
        let pause = Double(nanoseconds) / 1_000_000 * (1 - share) / share
        return min(longestWaitMilliseconds, max(1, Int(pause.rounded())))
    }

    /// Milliseconds from the end of a sweep that left the store within its caps to the next look, after
    /// `growth` since the sweep before.
    package func wait(within growth: Growth) -> Int {
        let seconds = Double(growth.nanoseconds) / 1_000_000_000
        var wait = Double(longestWaitMilliseconds)
        for (written, cap) in [(growth.registrations, policy.devices), (growth.events, policy.events)]
        where written > 0 && cap > 0 {
            wait = min(wait, Self.lookAgainAt * Double(cap) / (Double(written) / seconds) * 1000)
        }
        return min(longestWaitMilliseconds, max(Self.shortestWaitMilliseconds, Int(wait)))
    }
}
