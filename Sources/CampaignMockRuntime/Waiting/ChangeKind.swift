/// What a committed request changed, for waking the waiters that count such changes.
package enum ChangeKind: String, Sendable, CaseIterable, Codable {
    /// A registration was accepted.
    case registration
    /// A tracking hit with tag 1 was stored.
    case receive
    /// A tracking hit with tag 2 was stored.
    case open
    /// A request was journaled.
    case request
}
