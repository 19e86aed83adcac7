package import CampaignMockModel

/// What a firing rule does to a request.
package struct FaultEffect: Sendable, Equatable {
    package enum Outcome: Sendable, Equatable {
        /// Handle the request normally (after the delay).
        case proceed
        case respond(status: Int, body: String)
        case drop
        case reset
    }

    package let ruleID: String
    package let delayMs: Int
    package let outcome: Outcome

    /// What the journal record's ``RequestFact`` says of it.
    package var fired: FiredFault { outcome == .proceed ? .delayed(rule: ruleID) : .failed(rule: ruleID) }

    /// For the journal and the log.
    package var description: String {
        let action: String
        switch outcome {
        case .proceed: action = "delay \(delayMs) ms"
        case .respond(let status, _):
            action = delayMs > 0 ? "delay \(delayMs) ms, status \(status)" : "status \(status)"
        case .drop: action = delayMs > 0 ? "delay \(delayMs) ms, drop" : "drop"
        case .reset: action = delayMs > 0 ? "delay \(delayMs) ms, reset" : "reset"
        }
        return "fault \(ruleID) fired: \(action)"
    }
}
