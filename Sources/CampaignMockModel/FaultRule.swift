/// A fault to inject (docs/product.md §5.5): which requests it matches, what it does, and when.
///
/// JSON, flat: `{"endpoint": "registration-ios", "appKey": "K", "status": 503, "body": "busy", "times": 2}`.
public struct FaultRule: Sendable, Codable, Equatable {
    /// The endpoint family a rule matches; `any` is every Campaign endpoint (never the admin API).
    public typealias Endpoint = EndpointFamily

    /// Assigned when the rule is added (`f1`, `f2`, …) unless given.
    public var id: String?
    public var endpoint: Endpoint
    /// Only requests naming this integration key (registrations; tracking hits of messages issued for it).
    public var appKey: String?
    /// Only requests for this registration token.
    public var token: String?
    /// Only this HTTP method.
    public var method: String?

    /// Answer with this status (and `body`) instead of handling the request.
    public var status: Int?
    public var body: String?
    /// Wait this long first; alone, the request is then handled normally.
    public var delayMs: Int?
    /// Close the connection without answering.
    public var drop: Bool?
    /// Abort the connection with a TCP RST.
    public var reset: Bool?

    /// Fire on at most this many matches (counted after `after`).
    public var times: Int?
    /// Let this many matches pass before firing.
    public var after: Int?
    /// Fire on a match with this probability (0–1), drawn from a generator seeded with `seed`.
    public var probability: Double?
    public var seed: UInt64?

    public init(endpoint: Endpoint) {
        self.endpoint = endpoint
    }

    /// The largest `body` a rule may answer with (a fault imitates an error page, not a download).
    public static let bodyLimit = 64 * 1024

    /// Checks the rule makes sense; the message names the field.
    public func validate() throws(FaultRuleError) {
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

    public init(
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
public struct FaultRuleError: Error, Equatable, CustomStringConvertible {
    public let message: String
    /// The rule is fine but collides with an existing one (answered `409`).
    public let isConflict: Bool
    public init(_ message: String, isConflict: Bool = false) {
        self.message = message
        self.isConflict = isConflict
    }
    public var description: String { message }
}

/// A fault rule with how often it matched and fired (`GET /_mock/faults`).
public struct FaultStatus: Sendable, Codable, Equatable {
    public var rule: FaultRule
    public var matched: Int
    public var fired: Int

    public init(rule: FaultRule, matched: Int, fired: Int) {
        self.rule = rule
        self.matched = matched
        self.fired = fired
    }
}

// Presets for the outcomes the SDKs' tests ask for most (the Swift client's callers use them).
extension FaultRule {
    /// The legacy iOS SDK reports `FailureUnknownUUID`.
    public static func unknownIntegrationKey(_ key: String, platform: Platform = .ios) -> FaultRule {
        FaultRule(
            endpoint: platform == .ios ? .registrationIOS : .registrationAndroid, status: 404,
            body: "Unknown integration key (mobileAppUuid): \(key)")
    }

    /// The legacy iOS SDK reports `FailureUnexpectedError` with `reason`; the AEP extension a failed registration.
    public static func serverError(_ endpoint: Endpoint = .any, status: Int = 500, reason: String = "Internal error")
        -> FaultRule
    {
        FaultRule(endpoint: endpoint, status: status, body: reason)
    }

    /// The connection closes without an answer: `FailureConnectionIssue` on the legacy iOS SDK.
    public static func connectionDropped(_ endpoint: Endpoint = .any) -> FaultRule {
        FaultRule(endpoint: endpoint, drop: true)
    }

    /// A slow network: every answer waits `milliseconds` (the AEP extension gives up after
    /// `campaignclassic.timeout`, 30 s by default).
    public static func slow(_ endpoint: Endpoint = .any, milliseconds: Int) -> FaultRule {
        FaultRule(endpoint: endpoint, delayMs: milliseconds)
    }

    /// A flaky server: `503` on a share of the requests, the same ones in every run with the same seed.
    public static func flaky(_ endpoint: Endpoint = .any, probability: Double, seed: UInt64 = 1) -> FaultRule {
        FaultRule(endpoint: endpoint, status: 503, body: "Service Unavailable", probability: probability, seed: seed)
    }
}
