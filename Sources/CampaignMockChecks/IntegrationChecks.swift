package import CampaignMockModel
package import CampaignMockStorage
import CampaignMockSupport
import CampaignMockSystem
import Dispatch
import Synchronization

/// The integration checks of a running server: the ``ChecksEngine`` fed from the store's committed changes,
/// on a queue of its own, with a tick that fires the rules that wait for a receive. `GET /_mock/checks`
/// reads the engine's findings, never the store.
///
/// The writer only appends each committed batch to ``pending``; the queue takes the batches in
/// ``feedMilliseconds`` after the first of them, or at once when something reads or changes the findings
/// (every call below but ``onChange(_:)`` takes in what was committed before it). So a burst of commits
/// costs one wake of the queue every ``feedMilliseconds`` (as the event stream's 20 ms), not one a batch: a
/// wake a batch was a futex call and a switch of threads for each of thousands of batches a second, on cores
/// the writer and the event loops share (and each wake of a timer of Dispatch wakes two threads of it).
///
/// A finding that appears or clears is handed to ``onChange(_:)`` when its batch is taken in, within
/// ``feedMilliseconds``; one that only changed (its count, words or evidence) is handed over at the next
/// tick, once, as it is then, however often it changed.
package final class IntegrationChecks: Sendable {
    private let engine: Mutex<ChecksEngine>
    private let queue = DispatchQueue(label: "campaign-mock.checks")
    /// Microseconds since 1970: the wall clock, or a test's.
    private let now: @Sendable () -> Int64
    private let knownKeys: @Sendable () -> [String: Platform]
    private let subscriber = Mutex<Subscriber?>(nil)
    private let tickMilliseconds: Int
    /// The committed batches not taken in yet, oldest first, and whether the queue is due to take them.
    private let pending = Mutex<(batches: [[CommittedChange]], due: Bool)>(([], false))
    /// How long after a batch is committed the queue takes it in, at the most, unless a read comes first.
    static let feedMilliseconds = 20

    /// Where the changes of findings go (the event stream). In a struct: a `Mutex` re-wraps a bare closure.
    private struct Subscriber {
        let receive: @Sendable ([CheckChange]) -> Void
    }

    /// - Parameters:
    ///   - knownKeys: the integration keys the server knows, asked when a registration names an unknown one.
    ///   - tickMilliseconds: how often the rules that wait for a receive look at the clock.
    package init(
        settings: ChecksEngine.Settings = ChecksEngine.Settings(),
        now: @escaping @Sendable () -> Int64 = { Clock.wallClockMicroseconds() },
        tickMilliseconds: Int = 1000,
        knownKeys: @escaping @Sendable () -> [String: Platform]
    ) {
        engine = Mutex(ChecksEngine(settings: settings))
        self.now = now
        self.knownKeys = knownKeys
        self.tickMilliseconds = tickMilliseconds
        scheduleTick()
    }

    /// Hands each change of a finding to `receive`, on the checks' queue: appearances and clearings as they
    /// happen, updates at the next tick.
    package func onChange(_ receive: @escaping @Sendable ([CheckChange]) -> Void) {
        subscriber.withLock { $0 = Subscriber(receive: receive) }
    }

    /// A committed batch (on the writer thread: it is only kept here, and the first batch since the queue
    /// last took them in has it do so in ``feedMilliseconds``).
    package func committed(_ changes: [CommittedChange]) {
        let first = pending.withLock { state in
            state.batches.append(changes)
            defer { state.due = true }
            return !state.due
        }
        guard first else { return }
        queue.asyncAfter(deadline: .now() + .milliseconds(Self.feedMilliseconds)) { [self] in takeIn() }
    }

    /// On the queue: observes every batch committed so far, in the order they were committed.
    private func takeIn() {
        let batches = pending.withLock { state in
            defer { state = ([], false) }
            return state.batches
        }
        for changes in batches {
            let observations = ChecksFeed.observations(changes, knownKeys: knownKeys)
            guard !observations.isEmpty else { continue }
            publish(engine.withLock { $0.observe(observations) })
        }
    }

    /// The findings now: after every batch committed before this call, with the waits that ended fired.
    package func report(_ filter: ChecksEngine.Filter = ChecksEngine.Filter()) -> CheckReport {
        queue.sync {
            tick()
            let time = now()
            return engine.withLock { engine in
                var report = engine.report(filter)
                report.windows = engine.windows(at: time)
                return report
            }
        }
    }

    /// Returns once the checks have taken in every batch committed before this call.
    package func settle() {
        afterWhatWasCommitted {}
    }

    /// The fault rules set now (after one is added or removed): `fault-active` of removed ones clears.
    package func faultRules(_ ids: Set<String>) {
        queue.async { [self] in
            takeIn()
            publish(engine.withLock { $0.faultRules(ids) })
        }
    }

    /// Clears the findings (of `app`, or all), remembering what was seen (``ChecksEngine/clearFindings(app:)``).
    /// Returns how many cleared.
    /// The app and token given here are the client's text, keyed as the observations keep them
    /// (``ClientText/key(_:)``).
    package func clearFindings(app: String?) -> Int {
        let app = app.map(ClientText.key)
        return afterWhatWasCommitted {
            let changes = engine.withLock { $0.clearFindings(app: app) }
            publish(changes)
            return changes.count
        }
    }

    /// The devices (of `app`, or all) were deleted (``ChecksEngine/forgetDevices(app:)``).
    package func forgetDevices(app: String?) {
        let app = app.map(ClientText.key)
        afterWhatWasCommitted { engine.withLock { $0.forgetDevices(app: app) } }
    }

    /// The device of `token` in `app` was removed: the findings about it clear. Returns how many did, once
    /// every batch committed before this call is in.
    package func forgetDevice(app: String, token: String) -> Int {
        let (app, token) = (ClientText.key(app), ClientText.key(token))
        return afterWhatWasCommitted {
            let changes = engine.withLock { $0.forgetDevice(app: app, token: token) }
            publish(changes)
            return changes.filter { $0.change == .cleared && $0.finding.registrationToken == token }.count
        }
    }

    /// The store was reset or replaced: the checks start afresh.
    package func reset() {
        afterWhatWasCommitted { publish(engine.withLock { $0.reset() }) }
    }

    /// Runs `body` on the queue once every batch committed before this call is taken in.
    private func afterWhatWasCommitted<T>(_ body: () -> T) -> T {
        queue.sync {
            takeIn()
            return body()
        }
    }

    /// On the queue: takes in what was committed, then fires the waits that ended.
    private func tick() {
        takeIn()
        let time = now()
        publish(engine.withLock { $0.advance(to: time) })
    }

    private func publish(_ changes: [CheckChange]) {
        guard !changes.isEmpty, let subscriber = subscriber.withLock({ $0 }) else { return }
        subscriber.receive(changes)
    }

    private func scheduleTick() {
        queue.asyncAfter(deadline: .now() + .milliseconds(tickMilliseconds)) { [weak self] in
            guard let self else { return }
            tick()
            publish(engine.withLock { $0.takeUpdates() })
            scheduleTick()
        }
    }
}
