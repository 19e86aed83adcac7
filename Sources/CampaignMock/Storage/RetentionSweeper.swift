import CampaignMockCore
import Dispatch
import Synchronization

/// Sweeps the store for what the ``RetentionPolicy`` no longer keeps: a second after the start, then
/// every `intervalMilliseconds` (every second while a sweep finds more than it takes at once). Each sweep
/// is one job of the store's writer, bounded by ``RetentionPolicy/batch`` rows per table.
final class RetentionSweeper: Sendable {
    private let store: Store
    private let policy: RetentionPolicy
    private let intervalMilliseconds: Int
    private let logger: Logger
    private let queue = DispatchQueue(label: "retention")
    private let stopped = Atomic<Bool>(false)
    /// The newest registration whose device's history a sweep checked.
    private let historyCheckedUpTo = Atomic<Int64>(0)

    init(store: Store, policy: RetentionPolicy, intervalMilliseconds: Int, logger: Logger) {
        self.store = store
        self.policy = policy
        self.intervalMilliseconds = intervalMilliseconds
        self.logger = logger
        if policy.events > 0 || policy.devices > 0 || policy.days > 0 || policy.historyPerDevice > 0 {
            schedule(after: min(1000, intervalMilliseconds))
        }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    private func schedule(after milliseconds: Int) {
        queue.asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [self] in
            guard !stopped.load(ordering: .relaxed) else { return }
            let after = historyCheckedUpTo.load(ordering: .relaxed)
            store.write { [policy] in
                try $0.sweep(policy, historyAfter: after)
            } completion: { [self] outcome in
                var next = intervalMilliseconds
                switch outcome {
                case .success(let sweep):
                    historyCheckedUpTo.store(sweep.historyCheckedUpTo, ordering: .relaxed)
                    if !sweep.isEmpty {
                        logger.info(
                            "retention: deleted \(sweep.events) events, \(sweep.devices) devices and "
                                + "\(sweep.registrations) history rows beyond --retain-events \(policy.events), "
                                + "--retain-devices \(policy.devices), --retain-days \(policy.days)")
                    }
                    if sweep.more { next = min(1000, intervalMilliseconds) }
                case .failure(let error):
                    logger.error("retention: the sweep failed: \(error)")
                }
                schedule(after: next)
            }
        }
    }
}
