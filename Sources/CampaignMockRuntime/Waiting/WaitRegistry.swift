package import CampaignMockHTTP
import Dispatch
import Synchronization

/// Long-poll waiters (`GET /_mock/wait`). A waiter looks at the store again only when a commit may
/// satisfy it (its ``ChangeNotice`` fits the waiter's filters); nothing polls the database. Looks run on
/// the registry's own queue, coalesced (one pass per burst of commits), so many waiters do not slow the
/// SDK endpoints, and a commit with no waiter costs one atomic load.
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
        let kind: ChangeKind
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
    /// Notices not looked at yet; past `pendingLimit` they are replaced by "everything may match".
    private let pending = Mutex<(notices: [ChangeNotice], overflow: Bool, scheduled: Bool)>(([], false, false))
    private static let pendingLimit = 4096
    private let ids = Atomic<UInt64>(0)

    package init() {}

    /// How many waiters are waiting.
    package var count: Int { waiterCount.load(ordering: .relaxed) }

    /// Waits until `check` is satisfied or `timeoutMilliseconds` pass, then replies.
    /// - Parameter allowed: per fact, the values the waiter's filters accept (a filter left out: no entry).
    package func wait(
        for kind: ChangeKind, allowed: [ChangeFact: Set<String>] = [:], timeoutMilliseconds: Int, reply: ReplyChannel,
        check: @escaping @Sendable (_ timedOut: Bool) -> Check
    ) {
        let id = ids.wrappingAdd(1, ordering: .relaxed).newValue
        queue.async { [self] in
            let first = check(false)
            if first.satisfied {
                reply.send(first.response())
                return
            }
            waiters.withLock { $0[id] = Waiter(kind: kind, allowed: allowed, check: check, reply: reply) }
            waiterCount.wrappingAdd(1, ordering: .relaxed)
            queue.asyncAfter(deadline: .now() + .milliseconds(timeoutMilliseconds)) { [self] in
                guard let waiter = remove(id) else { return }
                waiter.reply.send(waiter.check(true).response())
            }
        }
    }

    /// Tells the waiters what was committed. Cheap; safe from any thread (the writer calls it).
    /// `notices` are made only while someone waits (most requests have nobody to tell).
    package func notify(_ makeNotices: @autoclosure () -> [ChangeNotice]) {
        guard waiterCount.load(ordering: .relaxed) > 0 else { return }
        let notices = makeNotices()
        guard !notices.isEmpty else { return }
        let schedule = pending.withLock { state in
            if state.notices.count + notices.count > Self.pendingLimit {
                state.overflow = true
                state.notices.removeAll()
            } else if !state.overflow {
                state.notices += notices
            }
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if schedule { queue.async { [self] in recheck() } }
    }

    /// Tells every waiter to look again (after a snapshot import, say).
    package func notifyEverything() {
        notify(ChangeKind.allCases.map { ChangeNotice(kind: $0) })
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
        let (notices, overflow) = pending.withLock { state in
            defer { state = ([], false, false) }
            return (state.notices, state.overflow)
        }
        let summary = ChangeSummary(notices)
        let candidates = waiters.withLock { waiters in
            waiters.filter { _, waiter in overflow || summary.mayMatch(kind: waiter.kind, allowed: waiter.allowed) }
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
