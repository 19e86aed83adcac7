package import CampaignMockCore
import Dispatch
import Synchronization

/// Long-poll waiters (`GET /_mock/wait`). A waiter is re-checked only when a commit changed what it
/// counts; nothing polls the database. Checks run on the registry's own queue, coalesced (one pass per
/// burst of commits), so many waiters never slow the SDK endpoints, and a commit with no waiter costs
/// one atomic load.
package final class WaitRegistry: Sendable {
    /// One look at the store for a waiter.
    package struct Check {
        package var satisfied: Bool
        /// The answer if the waiter ends now.
        package var response: HTTPResponse
    }

    private struct Waiter {
        let kind: ChangeKind
        /// Looks again; `timedOut` asks for the `408` form.
        let check: @Sendable (_ timedOut: Bool) -> Check
        let reply: ReplyChannel
    }

    private let queue = DispatchQueue(label: "campaign-mock.waiters")
    /// Waiters by id. Added and checked on `queue`; removed there or by the timeout, also on `queue`.
    private let waiters = Mutex<[UInt64: Waiter]>([:])
    private let waiterCount = Atomic<Int>(0)
    private let pending = Mutex<(kinds: Set<ChangeKind>, scheduled: Bool)>(([], false))
    private let ids = Atomic<UInt64>(0)

    package init() {}

    /// How many waiters are waiting.
    package var count: Int { waiterCount.load(ordering: .relaxed) }

    /// Waits until `check` is satisfied or `timeoutMilliseconds` pass, then replies.
    package func wait(
        for kind: ChangeKind, timeoutMilliseconds: Int, reply: ReplyChannel,
        check: @escaping @Sendable (_ timedOut: Bool) -> Check
    ) {
        let id = ids.wrappingAdd(1, ordering: .relaxed).newValue
        queue.async { [self] in
            let first = check(false)
            if first.satisfied {
                reply.send(first.response)
                return
            }
            waiters.withLock { $0[id] = Waiter(kind: kind, check: check, reply: reply) }
            waiterCount.wrappingAdd(1, ordering: .relaxed)
            queue.asyncAfter(deadline: .now() + .milliseconds(timeoutMilliseconds)) { [self] in
                guard let waiter = remove(id) else { return }
                waiter.reply.send(waiter.check(true).response)
            }
        }
    }

    /// Tells the waiters that `kinds` changed. Cheap; safe from any thread (the writer calls it).
    package func notify(_ kinds: Set<ChangeKind>) {
        guard waiterCount.load(ordering: .relaxed) > 0, !kinds.isEmpty else { return }
        let schedule = pending.withLock { state in
            state.kinds.formUnion(kinds)
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if schedule { queue.async { [self] in recheck() } }
    }

    /// Ends every waiter now with its current answer (shutdown).
    package func finishAll() {
        queue.sync {
            let all = waiters.withLock { waiters in
                defer { waiters.removeAll() }
                return Array(waiters.values)
            }
            waiterCount.store(0, ordering: .relaxed)
            for waiter in all { waiter.reply.send(waiter.check(true).response) }
        }
    }

    private func recheck() {
        let kinds = pending.withLock { state in
            defer { state = ([], false) }
            return state.kinds
        }
        let candidates = waiters.withLock { $0.filter { kinds.contains($0.value.kind) } }
        for (id, waiter) in candidates {
            let result = waiter.check(false)
            if result.satisfied, remove(id) != nil {
                waiter.reply.send(result.response)
            }
        }
    }

    private func remove(_ id: UInt64) -> Waiter? {
        let waiter = waiters.withLock { $0.removeValue(forKey: id) }
        if waiter != nil { waiterCount.wrappingSubtract(1, ordering: .relaxed) }
        return waiter
    }
}
