/// A fact a waiter's filter compares: what a change was about.
package enum ChangeFact: Hashable, Sendable {
    case app, platform, userKey, token, deliveryId, messageValue, messageUuid, endpoint, status
    /// `param.<name>` of a registration's additional params.
    case param(String)
}

/// What one committed request changed, described by the facts waiter filters compare
/// (`app`, `token`, `deliveryId`, `endpoint`, `param.email`, …).
///
/// It only decides whether a waiter should look at the store again: a fact the notice does not carry
/// counts as a possible match, so a notice can cause an extra look but never a missed one.
package struct ChangeNotice: Sendable {
    package var kind: ChangeKind
    /// Made when a waiter's filters are compared, not before: most requests have nobody waiting, and
    /// building the dictionary cost a tracking hit 3 % of its instructions.
    private let makeFacts: @Sendable () -> [ChangeFact: String]

    package var facts: [ChangeFact: String] { makeFacts() }

    package init(kind: ChangeKind, facts: @escaping @autoclosure @Sendable () -> [ChangeFact: String] = [:]) {
        self.kind = kind
        self.makeFacts = facts
    }
}

/// Many notices folded together, so each waiter is tested once per pass, not once per notice.
///
/// Per kind it keeps how many notices there were and, per fact, the values seen and how many notices
/// carried the fact. The test is conservative: it may let a waiter look when no single notice fits all
/// its filters, never the reverse.
package struct ChangeSummary {
    private struct Facts {
        var notices = 0
        var values: [ChangeFact: Set<String>] = [:]
        var carrying: [ChangeFact: Int] = [:]
    }

    private var kinds: [ChangeKind: Facts] = [:]

    init(_ notices: [ChangeNotice]) {
        for notice in notices {
            var facts = kinds[notice.kind] ?? Facts()
            facts.notices += 1
            for (fact, value) in notice.facts {
                facts.values[fact, default: []].insert(value)
                facts.carrying[fact, default: 0] += 1
            }
            kinds[notice.kind] = facts
        }
    }

    /// Whether a waiter of `kind` accepting only `allowed` values per fact may now be satisfied.
    func mayMatch(kind: ChangeKind, allowed: [ChangeFact: Set<String>]) -> Bool {
        guard let facts = kinds[kind], facts.notices > 0 else { return false }
        for (fact, accepted) in allowed {
            let someLackIt = facts.carrying[fact, default: 0] < facts.notices
            if !someLackIt && facts.values[fact, default: []].isDisjoint(with: accepted) { return false }
        }
        return true
    }
}
