package import CampaignMockSystem
import Dispatch
import Synchronization

/// Sweeps the store for what the ``RetentionPolicy`` no longer keeps: a second after the start, then
/// every `intervalMilliseconds`. Each sweep is one bounded job of the store's writer (see
/// ``StoreTransaction/sweep(_:now:historyAfter:)``). While a sweep leaves more to delete, the next one
/// comes soon, paced so that it takes a tenth of the writer's time at most while others write (the
/// writes queued behind a sweep wait for it), and back to back when nothing else wrote since the last:
/// under a load the store may pass its caps for a while, and returns to them once the load stops.
package final class RetentionSweeper: Sendable {
    private let store: Store
    private let policy: RetentionPolicy
    private let intervalMilliseconds: Int
    private let logger: Logger
    private let queue = DispatchQueue(label: "retention")
    private let stopped = Atomic<Bool>(false)
    /// What the sweeps carry from one to the next (the sweeper's queue only).
    private struct Progress {
        /// The newest registration whose device's history a sweep checked.
        var historyCheckedUpTo: Int64 = 0
        /// The newest writes the last sweep saw (``RetentionSweep/newestWrites``).
        var newestWrites: [Int64] = []
        /// What the sweeps deleted since the store was last within its caps, for one log line then.
        var deleted = RetentionSweep()
    }
    private let progress = Mutex(Progress())

    package init(store: Store, policy: RetentionPolicy, intervalMilliseconds: Int, logger: Logger) {
        self.store = store
        self.policy = policy
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
            let after = progress.withLock { $0.historyCheckedUpTo }
            store.write { [policy] transaction in
                let started = Clock.monotonicNanoseconds()
                let sweep = try transaction.sweep(policy, historyAfter: after)
                return (sweep, Clock.monotonicNanoseconds() - started)
            } completion: { [self] outcome in
                schedule(after: next(after: outcome))
            }
        }
    }

    /// When the next sweep runs, given how this one went.
    private func next(after outcome: Result<(RetentionSweep, UInt64), any Error>) -> Int {
        let sweep: RetentionSweep
        let nanoseconds: UInt64
        switch outcome {
        case .success(let result): (sweep, nanoseconds) = result
        case .failure(let error):
            logger.error("retention: the sweep failed: \(error)")
            return intervalMilliseconds
        }
        let (idle, deleted) = progress.withLock { progress in
            let idle = progress.newestWrites == sweep.newestWrites
            progress.historyCheckedUpTo = sweep.historyCheckedUpTo
            progress.newestWrites = sweep.newestWrites
            progress.deleted.events += sweep.events
            progress.deleted.devices += sweep.devices
            progress.deleted.registrations += sweep.registrations
            let deleted = progress.deleted
            if !sweep.more { progress.deleted = RetentionSweep() }
            return (idle, deleted)
        }
        guard sweep.more else {
            if !deleted.isEmpty {
                logger.info(
                    "retention: deleted \(deleted.events) events, \(deleted.devices) devices and "
                        + "\(deleted.registrations) history rows beyond --retain-events \(policy.events), "
                        + "--retain-devices \(policy.devices), --retain-days \(policy.days)")
            }
            return intervalMilliseconds
        }
        // Nine times its own length after it, while others write: a tenth of the writer's time.
        return idle ? 1 : min(intervalMilliseconds, max(5, Int(nanoseconds / 1_000_000) * 9))
    }
}
