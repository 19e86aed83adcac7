package import CampaignMockModel
import Synchronization

/// The active fault rules and their schedules. Shared by every event loop, behind one mutex.
package final class FaultRegistry: Sendable {
    /// What identifies a request for matching; `appKey` and `token` are computed only when a rule needs them.
    package struct Subject {
        package var endpoint: EndpointFamily
        package var method: String
        package var identity: () -> (appKey: String?, token: String?)
    }

    /// A rule as listed: the rule and how often it matched and fired.
    private struct Entry {
        var rule: FaultRule
        var matched = 0
        var fired = 0
        var random: SplitMix64
    }

    private struct State {
        var entries: [Entry] = []
        var nextID = 1
    }

    private let state = Mutex(State())
    /// Most rules at once: every Campaign request is matched against each of them.
    package static let limit = 1000

    package init() {}

    /// Adds a rule (assigning an id if it has none) and returns it.
    ///
    /// - Throws: ``FaultRuleError`` for an invalid rule or a duplicate id.
    @discardableResult
    package func add(_ rule: FaultRule) throws(FaultRuleError) -> FaultRule {
        try rule.validate()
        return try state.withLock { (state) throws(FaultRuleError) -> FaultRule in
            var rule = rule
            if rule.id == nil {
                while state.entries.contains(where: { $0.rule.id == "f\(state.nextID)" }) { state.nextID += 1 }
                rule.id = "f\(state.nextID)"
                state.nextID += 1
            }
            guard state.entries.count < Self.limit else {
                throw FaultRuleError(
                    "there are \(Self.limit) fault rules already, the most kept; remove some (DELETE /_mock/faults)",
                    isConflict: true)
            }
            guard !state.entries.contains(where: { $0.rule.id == rule.id }) else {
                throw FaultRuleError("a rule with id '\(rule.id!)' exists already", isConflict: true)
            }
            state.entries.append(Entry(rule: rule, random: SplitMix64(seed: rule.seed ?? 0)))
            return rule
        }
    }

    /// Replaces every rule (snapshot import), validating all first.
    package func replaceAll(_ rules: [FaultRule]) throws(FaultRuleError) {
        for rule in rules { try rule.validate() }
        if rules.count > Self.limit { throw FaultRuleError("at most \(Self.limit) fault rules") }
        let ids = rules.compactMap(\.id)
        if Set(ids).count != ids.count { throw FaultRuleError("fault rule ids must be unique") }
        clear()
        for rule in rules { try add(rule) }
    }

    /// Removes one rule; false when there is none with that id.
    package func remove(id: String) -> Bool {
        state.withLock { state in
            let before = state.entries.count
            state.entries.removeAll { $0.rule.id == id }
            return state.entries.count < before
        }
    }

    /// Removes every rule; returns how many there were.
    @discardableResult
    package func clear() -> Int {
        state.withLock { state in
            defer {
                state.entries.removeAll()
                state.nextID = 1
            }
            return state.entries.count
        }
    }

    package func list() -> [FaultStatus] {
        state.withLock { state in state.entries.map { FaultStatus(rule: $0.rule, matched: $0.matched, fired: $0.fired) }
        }
    }

    package var rules: [FaultRule] { list().map(\.rule) }

    /// The first rule that matches and whose schedule says fire now, or nil. Matching advances the
    /// rule's counters and random sequence, so the same requests in the same order fire the same way.
    package func fire(for subject: Subject) -> FaultEffect? {
        var identity: (appKey: String?, token: String?)?
        return state.withLock { state in
            for index in state.entries.indices {
                let rule = state.entries[index].rule
                guard rule.endpoint.matches(subject.endpoint) else { continue }
                if let method = rule.method, method.uppercased() != subject.method { continue }
                if rule.appKey != nil || rule.token != nil {
                    if identity == nil { identity = subject.identity() }
                    if let appKey = rule.appKey, appKey != identity?.appKey { continue }
                    if let token = rule.token, token != identity?.token { continue }
                }
                state.entries[index].matched += 1
                let entry = state.entries[index]
                if entry.matched <= rule.after ?? 0 { continue }
                if let times = rule.times, entry.fired >= times { continue }
                if let probability = rule.probability, state.entries[index].random.nextUnit() >= probability {
                    continue
                }
                state.entries[index].fired += 1
                return FaultEffect(ruleID: rule.id ?? "?", delayMs: rule.delayMs ?? 0, outcome: Self.outcome(rule))
            }
            return nil
        }
    }

    private static func outcome(_ rule: FaultRule) -> FaultEffect.Outcome {
        if rule.drop == true { return .drop }
        if rule.reset == true { return .reset }
        if let status = rule.status { return .respond(status: status, body: rule.body ?? "") }
        return .proceed
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny generator with a fixed sequence per seed, so a rule's
/// `probability` fires on the same matches in every run.
struct SplitMix64: Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in [0, 1).
    mutating func nextUnit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }
}
