package import CampaignMockSystem
import Dispatch
import Synchronization

/// Sweeps the store for what the ``RetentionPolicy`` no longer keeps: a second after the start, then as
/// ``RetentionPace`` says, `intervalMilliseconds` apart at most. Each sweep is one bounded job of the
/// store's writer (see ``StoreTransaction/sweep(_:now:historyAfter:)``).
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
            let (after, settledAt) = progress.withLock {
                ($0.historyCheckedUpTo, $0.settled ? $0.newestWrites : [])
            }
            store.write { [policy] transaction in
                let started = Clock.monotonicNanoseconds()
                let sweep = try transaction.sweep(policy, historyAfter: after, settledAt: settledAt)
                return (sweep, started, Clock.monotonicNanoseconds() - started)
            } completion: { [self] outcome in
                schedule(after: next(after: outcome))
            }
        }
    }

    /// When the next sweep runs, given how this one went.
    private func next(after outcome: Result<(RetentionSweep, UInt64, UInt64), any Error>) -> Int {
        let sweep: RetentionSweep
        let started: UInt64
        let nanoseconds: UInt64
        switch outcome {
        case .success(let result): (sweep, started, nanoseconds) = result
        case .failure(let error):
            logger.error("retention: the sweep failed: \(error)")
            return max(intervalMilliseconds, Self.afterAFailureMilliseconds)
        }
        let (idle, deleted, growth) = progress.withLock { progress in
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
            progress.lastStarted = started
            progress.settled = !sweep.more
            progress.deleted.events += sweep.events
            progress.deleted.devices += sweep.devices
            progress.deleted.registrations += sweep.registrations
            var deleted = RetentionSweep()
            if !sweep.more && !progress.deleted.isEmpty && started - progress.loggedAt >= 60_000_000_000 {
                (deleted, progress.deleted, progress.loggedAt) = (progress.deleted, RetentionSweep(), started)
            }
            return (idle, deleted, growth)
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
        return idle ? 1 : pace.pause(after: nanoseconds, leaving: sweep)
    }
}

/// When the sweeps run, so that the store stays close to its caps under a steady load and comes back to
/// them after a flood, without holding the writes queued behind a sweep for longer than one sweep.
///
/// - Within its caps, the store is looked at again when it may have grown by ``lookAgainAt`` of a cap at
///   the pace it grew since the last look (every registration counted as a new device): 10 ms to the
///   longest wait apart.
/// - Over them, sweeps follow one another, each a bounded batch (``RetentionPolicy/deviceBatch``,
///   ``RetentionPolicy/eventBatch``), with a pause after each that gives them a share of the writer's
///   time: ``baseShare`` when the store is just over its caps, growing in proportion to how far over
///   it is, up to ``fullShare`` at ``fullShareOver`` over a cap and beyond. The batches stay the same
///   size, so a write waits for one batch at most; the writes get a smaller share of the writer while
///   the store is far over.
package struct RetentionPace: Sendable, Equatable {
    /// The sweeps' share of the writer's time while the store is just over its caps.
    package static let baseShare = 0.1
    /// Their share while it is `fullShareOver` or more over a cap.
    package static let fullShare = 0.5
    /// How far over a cap (a fraction of it) the sweeps take their full share.
    package static let fullShareOver = 0.2
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

    /// How many devices beyond the cap of `cap` a sweep counts (those left to delete): enough to tell
    /// how far over the cap the store is, up to where the sweeps take their full share.
    package static func counted(beyond cap: Int) -> Int {
        Int((Double(cap) * fullShareOver).rounded(.up)) + 1
    }

    /// The sweeps' share of the writer's time after a sweep that left `sweep.devicesOver` devices and
    /// `sweep.eventsOver` events beyond the caps.
    package func share(leaving sweep: RetentionSweep) -> Double {
        let over = max(
            Self.fraction(sweep.devicesOver, of: policy.devices), Self.fraction(sweep.eventsOver, of: policy.events))
        return Self.baseShare + (Self.fullShare - Self.baseShare) * min(1, over / Self.fullShareOver)
    }

    /// Milliseconds from the end of a sweep that took `nanoseconds` and left more to delete to the next
    /// one, so that the sweeps take ``share(leaving:)`` of the writer's time.
    package func pause(after nanoseconds: UInt64, leaving sweep: RetentionSweep) -> Int {
        let share = share(leaving: sweep)
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

    private static func fraction(_ over: Int, of cap: Int) -> Double {
        cap > 0 ? Double(over) / Double(cap) : 0
    }
}
