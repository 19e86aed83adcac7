/// How much an integration check's finding matters (docs/checks.md).
public enum CheckSeverity: String, Sendable, ClosedSet, Comparable {
    /// Worth knowing; the SDK may behave so by design.
    case info
    /// Probably wrong: the app works, but not as intended.
    case warning
    /// The integration is broken: data Campaign counts on is lost or refused.
    case error

    private var rank: Int {
        switch self {
        case .info: 0
        case .warning: 1
        case .error: 2
        }
    }

    public static func < (lhs: CheckSeverity, rhs: CheckSeverity) -> Bool { lhs.rank < rhs.rank }
}

/// What an integration check found in the app's own traffic: `GET /_mock/checks` lists them, the `check`
/// stream event carries one (docs/checks.md).
public struct CheckFinding: Sendable, Codable, Equatable {
    /// What the finding rests on: the journaled requests (`GET /_mock/requests/{id}`) and the times.
    public struct Evidence: Sendable, Codable, Equatable {
        public var requestIds: [Int64]
        /// RFC 3339.
        public var times: [String]

        public init(requestIds: [Int64] = [], times: [String] = []) {
            self.requestIds = requestIds
            self.times = times
        }
    }

    /// The rule and its subject, stable while the finding lasts: `open-without-receive:1000001:TOKEN`.
    public var id: String
    /// The rule's id: `open-without-receive`, `registration-refused`, …
    public var rule: String
    public var severity: CheckSeverity
    /// One line.
    public var title: String
    /// What happened, in words, with the values.
    public var message: String
    /// The integration key, where the finding is about one application.
    public var app: String?
    public var platform: Platform?
    public var registrationToken: String?
    public var messageId: String?
    /// How many times it happened.
    public var count: Int
    /// RFC 3339.
    public var firstSeen: String
    public var lastSeen: String
    public var evidence: Evidence
    /// What to change, in words.
    public var fix: String
    /// The doc section: `docs/checks.md#open-without-receive`.
    public var doc: String

    public init(
        id: String, rule: String, severity: CheckSeverity, title: String, message: String, app: String? = nil,
        platform: Platform? = nil, registrationToken: String? = nil, messageId: String? = nil, count: Int,
        firstSeen: String, lastSeen: String, evidence: Evidence, fix: String, doc: String
    ) {
        self.id = id
        self.rule = rule
        self.severity = severity
        self.title = title
        self.message = message
        self.app = app
        self.platform = platform
        self.registrationToken = registrationToken
        self.messageId = messageId
        self.count = count
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.evidence = evidence
        self.fix = fix
        self.doc = doc
    }

    private enum CodingKeys: String, CodingKey {
        case id, rule, severity, title, message, app, platform, registrationToken, messageId, count, firstSeen,
            lastSeen, evidence, fix, doc
    }

    /// Every field is written, `null` where it does not apply: a reader finds the same keys in each finding.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(rule, forKey: .rule)
        try container.encode(severity, forKey: .severity)
        try container.encode(title, forKey: .title)
        try container.encode(message, forKey: .message)
        try container.encode(app, forKey: .app)
        try container.encode(platform, forKey: .platform)
        try container.encode(registrationToken, forKey: .registrationToken)
        try container.encode(messageId, forKey: .messageId)
        try container.encode(count, forKey: .count)
        try container.encode(firstSeen, forKey: .firstSeen)
        try container.encode(lastSeen, forKey: .lastSeen)
        try container.encode(evidence, forKey: .evidence)
        try container.encode(fix, forKey: .fix)
        try container.encode(doc, forKey: .doc)
    }
}

/// `GET /_mock/checks`: the findings, most severe first, then newest first; and how many of each severity.
public struct CheckReport: Sendable, Codable, Equatable {
    /// The number of findings listed, per severity.
    public struct Counts: Sendable, Codable, Equatable {
        public var error: Int
        public var warning: Int
        public var info: Int

        public init(error: Int = 0, warning: Int = 0, info: Int = 0) {
            self.error = error
            self.warning = warning
            self.info = info
        }
    }

    /// A rule's wait that is still running: a finding may yet appear when it ends.
    public struct Window: Sendable, Codable, Equatable {
        /// How many waits are running (some may end without a finding).
        public var waiting: Int
        /// When the last of them ends, from the answer's time (0 when none runs).
        public var closesInMilliseconds: Int
        /// How long each wait lasts.
        public var lengthMilliseconds: Int

        public init(waiting: Int, closesInMilliseconds: Int, lengthMilliseconds: Int) {
            self.waiting = waiting
            self.closesInMilliseconds = closesInMilliseconds
            self.lengthMilliseconds = lengthMilliseconds
        }
    }

    /// The waits still running when the report was made (what `campaign-mock check --wait` waits out).
    public struct Windows: Sendable, Codable, Equatable {
        /// Opens whose receive may still come (`open-without-receive`).
        public var openReceive: Window
        /// Accepted sends whose receive may still come (`sent-not-received`).
        public var sentReceive: Window

        public init(openReceive: Window, sentReceive: Window) {
            self.openReceive = openReceive
            self.sentReceive = sentReceive
        }
    }

    public var findings: [CheckFinding]
    public var counts: Counts
    /// Absent from servers before it was added.
    public var windows: Windows?

    public init(findings: [CheckFinding], windows: Windows? = nil) {
        self.windows = windows
        self.findings = findings
        counts = Counts(
            error: findings.count { $0.severity == .error }, warning: findings.count { $0.severity == .warning },
            info: findings.count { $0.severity == .info })
    }
}

/// The data of a `check` stream event: a finding appeared, changed (its count, severity or evidence), or
/// cleared (what it said no longer holds).
public struct CheckChange: Sendable, Codable, Equatable {
    public enum Change: String, Sendable, ClosedSet {
        case appeared, updated, cleared
    }

    public var change: Change
    public var finding: CheckFinding

    public init(change: Change, finding: CheckFinding) {
        self.change = change
        self.finding = finding
    }
}
