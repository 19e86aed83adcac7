/// A fault to inject (docs/product.md §5.5): which requests it matches, what it does, and when.
///
/// JSON, flat: `{"endpoint": "registration-ios", "appKey": "K", "status": 503, "body": "busy", "times": 2}`.
package struct FaultRule: Sendable, Codable, Equatable {
    /// Endpoint families a rule can match; `any` is every Campaign endpoint (never the admin API).
    package enum Endpoint: String, Sendable, ClosedSet {
        case registrationIOS = "registration-ios"
        case registrationAndroid = "registration-android"
        case tracking
        case soap
        case health
        case any
    }

    /// Assigned when the rule is added (`f1`, `f2`, …) unless given.
    package var id: String?
    package var endpoint: Endpoint
    /// Only requests naming this integration key (registrations; tracking hits of messages issued for it).
    package var appKey: String?
    /// Only requests for this registration token.
    package var token: String?
    /// Only this HTTP method.
    package var method: String?

    /// Answer with this status (and `body`) instead of handling the request.
    package var status: Int?
    package var body: String?
    /// Wait this long first; alone, the request is then handled normally.
    package var delayMs: Int?
    /// Close the connection without answering.
    package var drop: Bool?
    /// Abort the connection with a TCP RST.
    package var reset: Bool?

    /// Fire on at most this many matches (counted after `after`).
    package var times: Int?
    /// Let this many matches pass before firing.
    package var after: Int?
    /// Fire on a match with this probability (0–1), drawn from a generator seeded with `seed`.
    package var probability: Double?
    package var seed: UInt64?

    package init(endpoint: Endpoint) {
        self.endpoint = endpoint
    }

    /// The largest `body` a rule may answer with (a fault imitates an error page, not a download).
    package static let bodyLimit = 64 * 1024

    /// Checks the rule makes sense; the message names the field.
    package func validate() throws(FaultRuleError) {
        if let id,
            id.isEmpty || id.count > 64
                || !id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_.-".contains($0)) })
        {
            throw FaultRuleError("id must be 1 to 64 of A-Z a-z 0-9 _ . -")
        }
        if let status, !(100...599).contains(status) { throw FaultRuleError("status must be 100-599") }
        if let delayMs, !(0...300_000).contains(delayMs) { throw FaultRuleError("delayMs must be 0-300000") }
        if let times, !(1...1_000_000_000).contains(times) { throw FaultRuleError("times must be 1-1000000000") }
        if let after, !(0...1_000_000_000).contains(after) { throw FaultRuleError("after must be 0-1000000000") }
        if let probability, !(0...1).contains(probability) { throw FaultRuleError("probability must be 0-1") }
        if seed != nil && probability == nil { throw FaultRuleError("seed goes with probability") }
        // 2^53 - 1: the largest integer every JSON reader keeps exactly.
        if let seed, seed > 9_007_199_254_740_991 { throw FaultRuleError("seed must be 0-9007199254740991") }
        if body != nil && status == nil { throw FaultRuleError("body goes with status") }
        if let body, body.utf8.count > Self.bodyLimit {
            throw FaultRuleError("body must be at most \(Self.bodyLimit / 1024) KiB")
        }
        for (name, value) in [("appKey", appKey), ("token", token), ("method", method)] {
            if let value, value.utf8.count > 4096 { throw FaultRuleError("\(name) must be at most 4096 bytes") }
        }
        let outcomes = [status != nil, drop == true, reset == true].filter { $0 }.count
        if outcomes > 1 { throw FaultRuleError("choose one of status, drop and reset") }
        if outcomes == 0 && (delayMs ?? 0) == 0 {
            throw FaultRuleError("a rule needs an action: status, delayMs, drop or reset")
        }
        if let method, method.isEmpty || !method.allSatisfy({ $0.isLetter }) {
            throw FaultRuleError("method must be an HTTP method such as POST")
        }
    }

    package init(
        id: String? = nil, endpoint: Endpoint, appKey: String? = nil, token: String? = nil, method: String? = nil,
        status: Int? = nil, body: String? = nil, delayMs: Int? = nil, drop: Bool? = nil, reset: Bool? = nil,
        times: Int? = nil, after: Int? = nil, probability: Double? = nil, seed: UInt64? = nil
    ) {
        self.id = id
        self.endpoint = endpoint
        self.appKey = appKey
        self.token = token
        self.method = method
        self.status = status
        self.body = body
        self.delayMs = delayMs
        self.drop = drop
        self.reset = reset
        self.times = times
        self.after = after
        self.probability = probability
        self.seed = seed
    }
}

/// Why a fault rule was refused.
package struct FaultRuleError: Error, Equatable, CustomStringConvertible {
    package let message: String
    /// The rule is fine but collides with an existing one (answered `409`).
    package let isConflict: Bool
    package init(_ message: String, isConflict: Bool = false) {
        self.message = message
        self.isConflict = isConflict
    }
    package var description: String { message }

    package init(
        message: String, isConflict: Bool
    ) {
        self.message = message
        self.isConflict = isConflict
    }
}
