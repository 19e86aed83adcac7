package import CampaignMockCore
package import CampaignMockModel
package import CampaignMockStorage
import Dispatch
import Synchronization

/// Long-poll waiters (`GET /_mock/wait`). A waiter looks at the store again only when a committed change
/// may satisfy it: the store's sink hands the registry every committed batch (``CommittedChange``) before
/// the requests that made it are answered, and a change of the waiter's type whose facts fit its filters
/// wakes it. Nothing polls the database. Looks run on the registry's own queue, coalesced (one pass per
/// burst of commits), so many waiters do not slow the SDK endpoints, and a batch with no waiter costs one
/// atomic load.
package final class WaitRegistry: Sendable {
    /// One look at the store for a waiter.
    package struct Check {
        package var satisfied: Bool
        /// Makes the answer, when the waiter ends now (built only then).
        package var response: () -> HTTPResponse

        package init(satisfied: Bool, response: @escaping () -> HTTPResponse) {
            self.satisfied = satisfied
            self.response = response
        }
    }

    private struct Waiter {
        let kind: StreamEventType
        /// The values the waiter's filters accept, per fact.
        let allowed: [ChangeFact: Set<String>]
        /// Looks again; `timedOut` asks for the `408` form.
        let check: @Sendable (_ timedOut: Bool) -> Check
        let reply: ReplyChannel
    }

    private let queue = DispatchQueue(label: "campaign-mock.waiters")
    /// Waiters by id. Added and checked on `queue`; removed there or by the timeout, also on `queue`.
    private let waiters = Mutex<[UInt64: Waiter]>([:])
    private let waiterCount = Atomic<Int>(0)
    /// Changes not looked at yet; past `pendingLimit` they are replaced by "everything may match".
    private let pending = Mutex<(changes: [CommittedChange], overflow: Bool, scheduled: Bool)>(([], false, false))
    private static let pendingLimit = 4096
    private let ids = Atomic<UInt64>(0)

    /// A registry told of every batch `sink` hands on.
    package init(sink: ChangeSink) {
        sink.subscribe { [weak self] changes in self?.committed(changes) }
    }

    /// The kinds of change a waiter can wait for (`for=`).
    package static let kinds: [StreamEventType] = [.registration, .receive, .open, .request]

    /// How many waiters are waiting.
    package var count: Int { waiterCount.load(ordering: .relaxed) }

    /// Waits until `check` is satisfied or `timeoutMilliseconds` pass, then replies.
    /// - Parameter allowed: per fact, the values the waiter's filters accept (a filter left out: no entry).
    package func wait(
        for kind: StreamEventType, allowed: [ChangeFact: Set<String>] = [:], timeoutMilliseconds: Int,
        reply: ReplyChannel,
        check: @escaping @Sendable (_ timedOut: Bool) -> Check
    ) {
        let id = ids.wrappingAdd(1, ordering: .relaxed).newValue
        queue.async { [self] in
            // Counted before its first look: a batch committed while it looks is kept for the next pass.
            waiters.withLock { $0[id] = Waiter(kind: kind, allowed: allowed, check: check, reply: reply) }
            waiterCount.wrappingAdd(1, ordering: .relaxed)
            let first = check(false)
            if first.satisfied {
                if remove(id) != nil { reply.send(first.response()) }
                return
            }
            queue.asyncAfter(deadline: .now() + .milliseconds(timeoutMilliseconds)) { [self] in
                guard let waiter = remove(id) else { return }
                waiter.reply.send(waiter.check(true).response())
            }
        }
    }

    /// A committed batch (on the writer thread): most have nobody waiting, and cost one atomic load.
    private func committed(_ changes: [CommittedChange]) {
        guard waiterCount.load(ordering: .relaxed) > 0 else { return }
        schedule(changes, overflow: false)
    }

    private func schedule(_ changes: [CommittedChange], overflow: Bool) {
        let schedule = pending.withLock { state in
            if overflow || state.changes.count + changes.count > Self.pendingLimit {
                state.overflow = true
                state.changes.removeAll()
            } else if !state.overflow {
                state.changes += changes
            }
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if schedule { queue.async { [self] in recheck() } }
    }

    /// Tells every waiter to look again (after a snapshot import, which hands nothing on).
    package func notifyEverything() {
        guard waiterCount.load(ordering: .relaxed) > 0 else { return }
        schedule([], overflow: true)
    }

    /// Ends every waiter now with its current answer (shutdown).
    package func finishAll() {
        queue.sync {
            let all = waiters.withLock { waiters in
                defer { waiters.removeAll() }
                return Array(waiters.values)
            }
            waiterCount.store(0, ordering: .relaxed)
            for waiter in all { waiter.reply.send(waiter.check(true).response()) }
        }
    }

    private func recheck() {
        let (changes, overflow) = pending.withLock { state in
            defer { state = ([], false, false) }
            return (state.changes, state.overflow)
        }
        let candidates = waiters.withLock { waiters in
            waiters.filter { _, waiter in
                overflow || changes.contains { $0.mayMatch(waiter.kind, allowed: waiter.allowed) }
            }
        }
        for (id, waiter) in candidates {
            let result = waiter.check(false)
            if result.satisfied, remove(id) != nil {
                waiter.reply.send(result.response())
            }
        }
    }

    private func remove(_ id: UInt64) -> Waiter? {
        let waiter = waiters.withLock { $0.removeValue(forKey: id) }
        if waiter != nil { waiterCount.wrappingSubtract(1, ordering: .relaxed) }
        return waiter
    }
}
