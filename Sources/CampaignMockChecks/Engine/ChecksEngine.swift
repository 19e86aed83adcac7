package import CampaignMockModel
import CampaignMockSystem

/// The integration checks (docs/checks.md): a state machine over what the store commits. Each
/// ``CheckObservation`` updates what the rules remember and may make a finding appear, change or clear;
/// ``advance(to:)`` fires the rules that wait for something that did not come (a receive after an open or
/// after a send). It reads no store and no clock of its own: the caller hands it the times, so the rules
/// are tested without waiting. Memory is bounded by ``Settings`` (the oldest entry of a full table goes).
package struct ChecksEngine: Sendable {
    package struct Settings: Sendable {
        /// How long after APNs or FCM accepted a push its receive hit may take (`sent-not-received`).
        package var receiveWindow: Int64 = 120_000_000
        /// How long after an open its receive hit may still come (`open-without-receive`): the SDK sends
        /// the two hits on their own, and they may arrive out of order.
        package var openGrace: Int64 = 10_000_000
        /// `registration-storm`: this many identical registrations of one device within `stormWindow`.
        package var stormCount = 10
        package var stormWindow: Int64 = 60_000_000
        /// Composed messages remembered, for linking their hits to what they were.
        package var messageLimit = 50_000
        /// Devices remembered (`user-key-missing`, `registration-storm`).
        package var deviceLimit = 100_000
        /// Findings kept; the oldest goes (with a `cleared` change) when a new one would pass it.
        package var findingLimit = 500
        /// Request ids and times kept as a finding's evidence: the newest.
        package var evidenceLimit = 10

        package init() {}
    }

    package let settings: Settings
    var findings: BoundedTable<String, CheckFinding>
    var messages: BoundedTable<String, MessageState>
    var devices: BoundedTable<DeviceKey, DeviceState>
    var applications: [String: ApplicationState] = [:]
    /// Opens waiting for their receive, and accepted sends waiting for theirs, oldest first.
    var waitingOpens = DeadlineQueue()
    var waitingSends = DeadlineQueue()
    /// When a tracking request last failed by a fault rule: a receive it swallowed is not the app's fault.
    var lastTrackingFault: Int64?

    package init(settings: Settings = Settings()) {
        self.settings = settings
        findings = BoundedTable(limit: settings.findingLimit)
        messages = BoundedTable(limit: settings.messageLimit)
        devices = BoundedTable(limit: settings.deviceLimit)
    }

    // MARK: - Input

    /// Takes in what was committed; returns the findings that appeared, changed or cleared.
    package mutating func observe(_ observation: CheckObservation) -> [CheckChange] {
        var changes: [CheckChange] = []
        switch observation {
        case .registered(let registration): registered(registration, &changes)
        case .registrationRefused(let refusal): refused(refusal, &changes)
        case .hit(let hit): tracked(hit, &changes)
        case .composed(let message): composed(message, &changes)
        case .sendAccepted(let send): sendAccepted(send)
        case .faultFailed(let failure): faultFailed(failure, &changes)
        }
        return changes
    }

    /// Fires the rules whose wait ended at `now` (microseconds since 1970).
    package mutating func advance(to now: Int64) -> [CheckChange] {
        var changes: [CheckChange] = []
        while let due = waitingOpens.pop(dueAt: now) { openWaited(due, &changes) }
        while let due = waitingSends.pop(dueAt: now) { sendWaited(due, &changes) }
        return changes
    }

    /// The fault rules set now: `fault-active` findings of other rules clear.
    package mutating func faultRules(_ ids: Set<String>) -> [CheckChange] {
        var changes: [CheckChange] = []
        let gone = findings.entries.values.filter { $0.rule == CheckRule.faultActive.rawValue }
            .filter { !ids.contains(String($0.id.dropFirst(CheckRule.faultActive.rawValue.count + 1))) }
        for finding in gone { clear(finding.id, &changes) }
        return changes
    }

    /// Forgets everything (the store was reset): every finding clears.
    package mutating func reset() -> [CheckChange] {
        let cleared = findings.entries.values.sorted { $0.id < $1.id }.map {
            CheckChange(change: .cleared, finding: $0)
        }
        self = ChecksEngine(settings: settings)
        return cleared
    }

    // MARK: - Output

    /// What `GET /_mock/checks` filters on.
    package struct Filter: Sendable {
        package var app: String?
        package var token: String?
        /// This severity and above.
        package var minimum: CheckSeverity?
        /// Findings last seen at or after this time (microseconds since 1970).
        package var since: Int64?

        package init(app: String? = nil, token: String? = nil, minimum: CheckSeverity? = nil, since: Int64? = nil) {
            self.app = app
            self.token = token
            self.minimum = minimum
            self.since = since
        }
    }

    /// The findings that pass `filter`, most severe first, then the newest first.
    package func report(_ filter: Filter = Filter()) -> CheckReport {
        let since = filter.since.map { RFC3339.string(microsecondsSince1970: $0) }
        let listed = findings.entries.values.filter { finding in
            (filter.app == nil || finding.app == filter.app)
                && (filter.token == nil || finding.registrationToken == filter.token)
                && (filter.minimum.map { finding.severity >= $0 } ?? true)
                // The same format throughout: the texts sort as the times do.
                && (since.map { finding.lastSeen >= $0 } ?? true)
        }
        return CheckReport(
            findings: listed.sorted { a, b in
                if a.severity != b.severity { return a.severity > b.severity }
                if a.lastSeen != b.lastSeen { return a.lastSeen > b.lastSeen }
                return a.id < b.id
            })
    }

    // MARK: - Findings

    /// What a rule says about its subject this time.
    struct Note {
        var rule: CheckRule
        var subject: String
        var severity: CheckSeverity
        var title: String
        var message: String
        var fix: String
        var app: String? = nil
        var platform: Platform? = nil
        var token: String? = nil
        var messageId: String? = nil
        var at: Int64
        var requestId: Int64? = nil
        /// The count to show; nil adds one to it.
        var count: Int? = nil
    }

    /// Records `note`: a new finding appears, an existing one is updated with the newest words and evidence.
    mutating func record(_ note: Note, _ changes: inout [CheckChange]) {
        let id = note.rule.id(note.subject)
        let time = RFC3339.string(microsecondsSince1970: note.at)
        let limit = settings.evidenceLimit
        func newest<T>(_ list: [T], _ item: T?) -> [T] {
            guard let item else { return list }
            return Array((list + [item]).suffix(limit))
        }
        if var finding = findings[id] {
            finding.severity = note.severity
            finding.title = note.title
            finding.message = note.message
            finding.fix = note.fix
            finding.messageId = note.messageId ?? finding.messageId
            finding.registrationToken = note.token ?? finding.registrationToken
            finding.count = note.count ?? finding.count + 1
            if time > finding.lastSeen { finding.lastSeen = time }
            finding.evidence.requestIds = newest(finding.evidence.requestIds, note.requestId)
            finding.evidence.times = newest(finding.evidence.times, time)
            findings[id] = finding
            changes.append(CheckChange(change: .updated, finding: finding))
            return
        }
        let finding = CheckFinding(
            id: id, rule: note.rule.rawValue, severity: note.severity, title: note.title, message: note.message,
            app: note.app, platform: note.platform, registrationToken: note.token, messageId: note.messageId,
            count: note.count ?? 1, firstSeen: time, lastSeen: time,
            evidence: CheckFinding.Evidence(requestIds: note.requestId.map { [$0] } ?? [], times: [time]),
            fix: note.fix, doc: note.rule.doc)
        if let evicted = findings.insert(id, finding) {
            changes.append(CheckChange(change: .cleared, finding: evicted.value))
        }
        changes.append(CheckChange(change: .appeared, finding: finding))
    }

    mutating func clear(_ id: String, _ changes: inout [CheckChange]) {
        if let finding = findings.remove(id) { changes.append(CheckChange(change: .cleared, finding: finding)) }
    }

    /// One fewer occurrence of the finding `id` (what it counted turned out fine); it clears at none.
    mutating func retract(_ id: String, _ changes: inout [CheckChange]) {
        guard var finding = findings[id] else { return }
        finding.count -= 1
        if finding.count <= 0 { return clear(id, &changes) }
        findings[id] = finding
        changes.append(CheckChange(change: .updated, finding: finding))
    }
}

/// Deadlines in the order they were set (each is its observation's time plus a fixed window, so they come
/// out nearly in time order), with what they are for.
struct DeadlineQueue: Sendable {
    struct Entry: Sendable {
        var deadline: Int64
        var messageId: String
        /// When the awaited-for thing started (the open, the send), and its request.
        var at: Int64
        var requestId: Int64?
    }

    private var entries: [Entry] = []
    private var head = 0

    mutating func append(_ entry: Entry) { entries.append(entry) }

    /// The first entry, when its deadline is at or before `now`.
    mutating func pop(dueAt now: Int64) -> Entry? {
        guard head < entries.count, entries[head].deadline <= now else { return nil }
        defer {
            head += 1
            if head == entries.count {
                entries.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && head * 2 >= entries.count {
                entries.removeFirst(head)
                head = 0
            }
        }
        return entries[head]
    }

    var count: Int { entries.count - head }
}
