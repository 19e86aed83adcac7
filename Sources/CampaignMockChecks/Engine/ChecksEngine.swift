package import CampaignMockModel
import CampaignMockSupport
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
        package var deviceLimit = 20_000
        /// Findings kept; the oldest goes (with a `cleared` change) when a new one would pass it.
        package var findingLimit = 500
        /// Request ids and times kept as a finding's evidence: the newest.
        package var evidenceLimit = 10

        package init() {}
    }

    package let settings: Settings
    var findings: BoundedTable<FindingKey, Finding>
    /// The findings that changed since ``takeUpdates()`` last ran (each is listed when its first change
    /// marks it ``Finding/pending``): a hit that only counts one up leaves this list alone.
    var updated: [FindingKey] = []
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
        // Sized for its bound up front: a registration load fills it without rehashing every device again and
        // again (the dictionary's storage at the bound is the same size either way).
        devices = BoundedTable(limit: settings.deviceLimit, reserved: settings.deviceLimit)
    }

    // MARK: - Input

    /// Takes in what was committed; returns the findings that appeared or cleared. Those that only changed
    /// (their count, words or evidence) wait for ``takeUpdates()``: a load of hits costs one change each.
    package mutating func observe(_ observation: CheckObservation) -> [CheckChange] {
        var changes: [CheckChange] = []
        observe(observation, &changes)
        return changes
    }

    /// Takes in a batch, in order (``observe(_:)`` for each, with one list of changes for them all).
    package mutating func observe(_ observations: [CheckObservation]) -> [CheckChange] {
        var changes: [CheckChange] = []
        for observation in observations { observe(observation, &changes) }
        return changes
    }

    private mutating func observe(_ observation: CheckObservation, _ changes: inout [CheckChange]) {
        switch observation {
        case .registered(let registration): registered(registration, &changes)
        case .registrationRefused(let refusal): refused(refusal, &changes)
        case .hit(let hit): tracked(hit, &changes)
        case .composed(let message): composed(message, &changes)
        case .sendAccepted(let send): sendAccepted(send)
        case .faultFailed(let failure): faultFailed(failure, &changes)
        }
    }

    /// Fires the rules whose wait ended at `now` (microseconds since 1970).
    package mutating func advance(to now: Int64) -> [CheckChange] {
        var changes: [CheckChange] = []
        while let due = waitingOpens.pop(dueAt: now) { openWaited(due, &changes) }
        while let due = waitingSends.pop(dueAt: now) { sendWaited(due, &changes) }
        return changes
    }

    /// The findings that changed since the last call and still hold, as they are now, by id.
    package mutating func takeUpdates() -> [CheckChange] {
        var reported: [CheckFinding] = []
        for key in updated {
            // A finding that cleared (or cleared and appeared again) since is no longer pending.
            findings.update(key) { finding in
                guard finding.pending else { return }
                finding.pending = false
                reported.append(finding.reported)
            }
        }
        updated.removeAll(keepingCapacity: true)
        return reported.sorted { $0.id < $1.id }.map { CheckChange(change: .updated, finding: $0) }
    }

    /// The fault rules set now: `fault-active` findings of other rules clear.
    package mutating func faultRules(_ ids: Set<String>) -> [CheckChange] {
        var changes: [CheckChange] = []
        let gone = findings.entries.keys.filter { $0.rule == .faultActive && !ids.contains($0.subject) }
        for key in gone { clear(key, &changes) }
        return changes
    }

    /// Forgets everything (the store was reset): every finding clears.
    package mutating func reset() -> [CheckChange] {
        let cleared = findings.entries.values.sorted { $0.id < $1.id }.map {
            CheckChange(change: .cleared, finding: $0.reported)
        }
        self = ChecksEngine(settings: settings)
        return cleared
    }

    /// Clears the findings (of application `app`, or all) but remembers what was seen: a wait that is
    /// running still fires. The record of a run starts again.
    package mutating func clearFindings(app: String?) -> [CheckChange] {
        var changes: [CheckChange] = []
        let keys = findings.entries.filter { app == nil || $0.value.app == app }.keys
            .sorted { $0.rule.id($0.subject) < $1.rule.id($1.subject) }
        for key in keys { clear(key, &changes) }
        return changes
    }

    /// Forgets the devices of application `app` (or all): they were deleted, and count no more.
    package mutating func forgetDevices(app: String?) {
        for key in devices.entries.keys where app == nil || key.app == app { _ = devices.remove(key) }
        for name in applications.keys where app == nil || name == app { applications[name]?.forgetDevices() }
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
        /// Findings since a mark: with evidence (a request) after `request`, whenever the finding fired; one
        /// that rests on no request, last seen at or after `at`.
        package var mark: (request: Int64, at: Int64)?

        /// `app` and `token` as the findings keep them (``ClientText/key(_:)``).
        package init(app: String? = nil, token: String? = nil, minimum: CheckSeverity? = nil, since: Int64? = nil) {
            self.app = app.map(ClientText.key)
            self.token = token.map(ClientText.key)
            self.minimum = minimum
            self.since = since
        }
    }

    /// The rules' waits still running at `now`.
    package func windows(at now: Int64) -> CheckReport.Windows {
        func window(_ queue: DeadlineQueue, _ length: Int64) -> CheckReport.Window {
            let closes = queue.lastDeadline.map { max(0, $0 - now) } ?? 0
            return CheckReport.Window(
                waiting: queue.count, closesInMilliseconds: Int((closes + 999) / 1000),
                lengthMilliseconds: Int(length / 1000))
        }
        return CheckReport.Windows(
            openReceive: window(waitingOpens, settings.openGrace),
            sentReceive: window(waitingSends, settings.receiveWindow))
    }

    /// The findings that pass `filter`, most severe first, then the newest first.
    package func report(_ filter: Filter = Filter()) -> CheckReport {
        let since = filter.since.map(Finding.millisecond)
        let listed = findings.entries.values.filter { finding in
            (filter.app == nil || finding.app == filter.app)
                && (filter.token == nil || finding.registrationToken == filter.token)
                && (filter.minimum.map { finding.severity >= $0 } ?? true)
                && (since.map { finding.lastSeen >= $0 } ?? true)
                && (filter.mark.map { finding.isSince($0) } ?? true)
        }
        return CheckReport(
            findings: listed.sorted { a, b in
                if a.severity != b.severity { return a.severity > b.severity }
                if a.lastSeen != b.lastSeen { return a.lastSeen > b.lastSeen }
                return a.id < b.id
            }.map(\.reported))
    }

    // MARK: - Findings

    /// What a finding is about: its rule and subject. Its id, the two joined, is written once, when it appears.
    struct FindingKey: Hashable, Sendable {
        var rule: CheckRule
        var subject: String
    }

    /// What a rule says about its subject this time. Its message and fix are written only when the finding is
    /// reported: a finding that happens a thousand times between two reports is written once.
    struct Note {
        var rule: CheckRule
        var subject: String
        var severity: CheckSeverity
        var title: String
        var message: @Sendable () -> String
        var fix: @Sendable () -> String
        var app: String?
        var platform: Platform?
        var token: String?
        var messageId: String?
        var at: Int64
        var requestId: Int64?
        /// The count to show; nil adds one to it.
        var count: Int?

        init(
            rule: CheckRule, subject: String, severity: CheckSeverity, title: String,
            message: @autoclosure @escaping @Sendable () -> String, fix: @autoclosure @escaping @Sendable () -> String,
            app: String? = nil, platform: Platform? = nil, token: String? = nil, messageId: String? = nil, at: Int64,
            requestId: Int64? = nil, count: Int? = nil
        ) {
            self.rule = rule
            self.subject = subject
            self.severity = severity
            self.title = title
            self.message = message
            self.fix = fix
            self.app = app
            self.platform = platform
            self.token = token
            self.messageId = messageId
            self.at = at
            self.requestId = requestId
            self.count = count
        }
    }

    /// Records `note`: a new finding appears, an existing one is updated with the newest words and evidence.
    mutating func record(_ note: Note, _ changes: inout [CheckChange]) {
        let key = FindingKey(rule: note.rule, subject: note.subject)
        let evidenceLimit = settings.evidenceLimit
        // In place: the evidence is not copied.
        if let first = findings.update(key, { $0.add(note, evidenceLimit: evidenceLimit) }) {
            if first { updated.append(key) }
            return
        }
        let time = Finding.millisecond(note.at)
        let finding = Finding(
            body: CheckFinding(
                id: note.rule.id(note.subject), rule: note.rule.rawValue, severity: note.severity, title: note.title,
                message: "", app: note.app, platform: note.platform, registrationToken: note.token,
                messageId: note.messageId,
                count: note.count ?? 1, firstSeen: "", lastSeen: "",
                evidence: CheckFinding.Evidence(requestIds: note.requestId.map { [$0] } ?? []), fix: "",
                doc: note.rule.doc),
            message: note.message, fix: note.fix, firstSeen: time, lastSeen: time, times: [time])
        if let evicted = findings.insert(key, finding) {
            changes.append(CheckChange(change: .cleared, finding: evicted.value.reported))
        }
        changes.append(CheckChange(change: .appeared, finding: finding.reported))
    }

    mutating func clear(_ key: FindingKey, _ changes: inout [CheckChange]) {
        guard let finding = findings.remove(key) else { return }
        changes.append(CheckChange(change: .cleared, finding: finding.reported))
    }

    /// One fewer occurrence of the finding `key` (what it counted turned out fine); it clears at none.
    mutating func retract(_ key: FindingKey, _ changes: inout [CheckChange]) {
        guard let count = findings[key]?.count else { return }
        if count <= 1 { return clear(key, &changes) }
        changed(key) { $0.count = count - 1 }
    }

    /// Changes the finding `key` in place, as an update for the stream's next tick.
    mutating func changed(_ key: FindingKey, _ change: (inout Finding) -> Void) {
        let first = findings.update(key) { finding in
            change(&finding)
            return finding.markPending()
        }
        if first == true { updated.append(key) }
    }

    /// A finding as the engine keeps it: its words and times are written out only when it is reported (the
    /// times are kept in milliseconds, as microseconds since 1970). Its other fields read through to the
    /// finding's own.
    @dynamicMemberLookup
    struct Finding: Sendable {
        /// The finding, but for its message, fix and times.
        var body: CheckFinding
        var message: @Sendable () -> String
        var fix: @Sendable () -> String
        var firstSeen: Int64
        var lastSeen: Int64
        /// The evidence's times, oldest first.
        var times: [Int64]
        /// Changed since its last update went to the stream.
        var pending = false

        subscript<Value>(dynamicMember path: WritableKeyPath<CheckFinding, Value>) -> Value {
            get { body[keyPath: path] }
            set { body[keyPath: path] = newValue }
        }

        /// Whether it belongs to what came after a mark: a request of its evidence came after it (or, for
        /// one without requests, it was last seen at or after it).
        func isSince(_ mark: (request: Int64, at: Int64)) -> Bool {
            let requests = body.evidence.requestIds
            return requests.isEmpty ? lastSeen >= Self.millisecond(mark.at) : requests.contains { $0 > mark.request }
        }

        /// As `GET /_mock/checks` and the stream show it.
        var reported: CheckFinding {
            var finding = body
            finding.message = message()
            finding.fix = fix()
            finding.firstSeen = RFC3339.string(microsecondsSince1970: firstSeen)
            finding.lastSeen = RFC3339.string(microsecondsSince1970: lastSeen)
            finding.evidence.times = times.map { RFC3339.string(microsecondsSince1970: $0) }
            return finding
        }

        /// Marks the finding changed; whether it was not yet (it is to be listed for the next update).
        mutating func markPending() -> Bool {
            defer { pending = true }
            return !pending
        }

        /// `note` happened again: the newest words, one more (or the note's count), the newest evidence.
        /// Returns whether this is its first change since its last update (``markPending()``).
        mutating func add(_ note: Note, evidenceLimit: Int) -> Bool {
            body.severity = note.severity
            body.title = note.title
            message = note.message
            fix = note.fix
            body.messageId = note.messageId ?? body.messageId
            body.registrationToken = note.token ?? body.registrationToken
            body.count = note.count ?? body.count + 1
            let time = Self.millisecond(note.at)
            lastSeen = max(lastSeen, time)
            if let requestId = note.requestId { Self.append(requestId, to: &body.evidence.requestIds, evidenceLimit) }
            Self.append(time, to: &times, evidenceLimit)
            return markPending()
        }

        private static func append<T>(_ item: T, to list: inout [T], _ limit: Int) {
            list.append(item)
            if list.count > limit { list.removeFirst(list.count - limit) }
        }

        /// The start of the millisecond of `micros`: the precision the finding's times are written with.
        static func millisecond(_ micros: Int64) -> Int64 {
            micros - (micros % 1000 + 1000) % 1000
        }
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

    /// The latest deadline waiting (entries come nearly in deadline order: the last is taken).
    var lastDeadline: Int64? { count > 0 ? entries.last?.deadline : nil }
}
