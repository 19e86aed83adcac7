import CampaignMockChecks
import CampaignMockHTTP
import CampaignMockJournal
import CampaignMockModel
import CampaignMockPush
import CampaignMockRuntime
import CampaignMockStorage
import CampaignMockSupport

/// `/_mock/reset`, `/_mock/faults`, `/_mock/wait`, `/_mock/metrics`: steering the mock from a test.
extension AdminAPI {
    func registerControl(on group: inout RouteGroup) {
        group.add(.post, "/_mock/reset", respond: reset)
        group.add(.get, "/_mock/faults", respond: { _ in AdminResponse.json(.ok, FaultList(faults: faults.list())) })
        group.add(.post, "/_mock/faults", respond: addFault)
        group.add(.delete, "/_mock/faults", respond: clearFaults)
        group.add(.delete, "/_mock/faults/{id}", respond: deleteFault)
        group.add(.get, "/_mock/wait", wait)
        group.add(.get, "/_mock/metrics", respond: renderMetrics)
    }

    // MARK: - Reset

    private func reset(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try AdminResponse.query(request)
        try AdminResponse.allowOnly(query, ["only", "app"])
        var parts = Set(ResetPart.allCases)
        if let only = query["only"] {
            parts = []
            let names = "journal, events, devices, recipients, faults or findings"
            guard !only.isEmpty else { throw AdminError(.badRequest, "only must list \(names)") }
            for name in only.split(separator: ",", omittingEmptySubsequences: false) {
                guard let part = ResetPart(rawValue: String(name)) else {
                    throw AdminError(.badRequest, "only must list \(names), got '\(name)'")
                }
                parts.insert(part)
            }
        }
        let application = query["app"]
        var deleted: [ResetPart: Int]
        do {
            deleted = try store.writeAndWait { [parts] in try $0.reset(parts, applicationKey: application) }
        } catch let conflict as StoreConflict {
            throw AdminError(.notFound, conflict.message)
        }
        if parts.contains(.devices) { try distrustTokensWithoutDevice() }
        if parts.contains(.faults) {
            let rules = faults.rules.filter { application == nil || $0.appKey == application }
            for rule in rules { _ = faults.remove(id: rule.id ?? "") }
            deleted[.faults] = rules.count
        }
        // A reset of everything gives the file's space back too (the rows are gone either way: a failed
        // VACUUM leaves the space for new rows, as a partial reset does).
        if parts.count == ResetPart.allCases.count && application == nil { _ = try? store.reclaimSpace() }
        // Stored rows are gone (their ids may be given again): marks taken before count from nothing.
        if !parts.subtracting([.faults, .findings]).isEmpty { marksEnd("the reset") }
        var counted = Dictionary(uniqueKeysWithValues: deleted.map { ($0.key.rawValue, $0.value) })
        if parts.count == ResetPart.allCases.count && application == nil {
            counted["findings"] = checks.report().findings.count
            checksStartAfresh()
        } else {
            // The findings are kept in the checks' memory, not stored: the store leaves that part alone.
            if parts.contains(.findings) { counted["findings"] = checks.clearFindings(app: application) }
            if parts.contains(.devices) { checks.forgetDevices(app: application) }
            faultRulesChanged()
        }
        let counts = ResetAnswer(deleted: counted)
        stream.publish(.reset, counts, facts: application.map { [.app: $0] } ?? [:])
        return AdminResponse.json(.ok, counts)
    }

    // MARK: - Faults

    private func addFault(_ request: HTTPRequest) throws -> HTTPResponse {
        let rule = try AdminResponse.decode(FaultRule.self, from: request)
        do {
            return AdminResponse.json(.created, try faults.add(rule))
        } catch {
            throw AdminError(error.isConflict ? .conflict : .badRequest, error.message)
        }
    }

    private func deleteFault(_ request: HTTPRequest, _ parameters: RouteParameters) throws -> HTTPResponse {
        let id = parameters["id"] ?? ""
        guard faults.remove(id: id) else { throw AdminError(.notFound, "no fault rule with id '\(id)'") }
        faultRulesChanged()
        return AdminResponse.json(.ok, ["deleted": id])
    }

    private func clearFaults(_ request: HTTPRequest) throws -> HTTPResponse {
        let deleted = faults.clear()
        faultRulesChanged()
        return AdminResponse.json(.ok, ["deleted": deleted])
    }

    // MARK: - Metrics

    private func renderMetrics(_ request: HTTPRequest) throws -> HTTPResponse {
        let dropped = try store.read { $0.journalDropped() }
        let text = metrics.render(
            journalDropped: dropped, openConnections: server.openConnections, waiters: waits.count,
            streams: stream.count)
        return .content(.ok, type: "text/plain; version=0.0.4; charset=utf-8", Array(text.utf8))
    }

    // MARK: - Wait

    /// `GET /_mock/wait?for=…&count=N&timeout=5s&since=…&<filters>`: answers as soon as N matching items
    /// exist (counting from `since`; by default from the moment of the call), or `408` with what was seen
    /// and, for a wait that counted from its call, the matching items that arrived before it.
    private func wait(_ request: HTTPRequest, _ parameters: RouteParameters, _ reply: ReplyChannel) throws {
        let query = try AdminResponse.query(request)
        guard let name = query["for"], let kind = StreamEventType(rawValue: name), WaitRegistry.kinds.contains(kind)
        else {
            throw AdminError(.badRequest, "for must be registration, receive, open or request")
        }
        let wanted = Int(try AdminResponse.integer(query, "count", in: 1...1000, default: 1))
        let timeout = try Self.timeout(query["timeout"])
        let mark = try mark(since: query["since"])
        let since: Int64? = try query["since"].flatMap { $0 == "0" || mark != nil ? nil : try Self.timestamp($0) }
        let fromNow = query["since"] == nil
        // Items before the start are named on a timeout: before the call, or before the mark.
        let origin: WaitOrigin? = fromNow ? .call : mark.map { .mark($0.name) }

        switch kind {
        case .registration:
            try AdminResponse.allowOnly(
                query, Self.waitKeys + ["app", "platform", "userKey", "token"], prefix: "param.")
            let filter = try Self.deviceFilter(query)
            let start = fromNow ? try store.read { try $0.lastRegistrationID() } : mark?.registration ?? 0
            var allowed = Self.allowed([
                .app: filter.applicationKey, .platform: filter.platform?.rawValue, .userKey: filter.userKey,
                .token: filter.registrationToken,
            ])
            for param in filter.params { allowed[.param(param.name)] = [param.value] }
            let earlier: Earlier<RegistrationNotice> = { [store] in
                try store.read { reader in
                    let count = try reader.registrationCount(since: nil, matching: filter, upTo: start)
                    let newest = try reader.registrations(
                        .newestFirst(before: nil), since: nil, matching: filter, limit: 1, upTo: start
                    ).first
                    return newest.map { (count, $0, "at \($0.receivedAt), token \($0.registrationToken)") }
                }
            }
            waitFor(
                kind, wanted: wanted, timeout: timeout, start: start, allowed: allowed, reply: reply,
                earlier: origin.map { ($0, earlier) }, app: filter.applicationKey
            ) { after, limit in
                try store.read { reader in
                    let last = try reader.lastRegistrationID()
                    return (
                        try reader.registrations(
                            after: after, since: since, matching: filter, limit: limit, upTo: last), last
                    )
                }
            }
        case .receive, .open:
            try AdminResponse.allowOnly(query, Self.waitKeys + ["messageId", "deliveryId", "token"])
            var filter = try Self.eventFilter(query.filter { $0.key != "since" })
            filter.tag = kind.trackingKind
            filter.deliveryID = query["deliveryId"]
            filter.registrationToken = query["token"]
            filter.since = since
            let start = fromNow ? try store.read { try $0.lastEventID() } : mark?.event ?? 0
            var allowed = Self.allowed([.deliveryId: filter.deliveryID, .messageUuid: filter.messageUUID])
            if let values = filter.messageValues { allowed[.messageValue] = Set(values.map(String.init)) }
            let earlier: Earlier<TrackingEvent> = { [store, filter] in
                let page = try store.read {
                    try $0.events(matching: filter, .newestFirst(before: nil), limit: 1, upTo: start)
                }
                return page.events.first.map { newest in
                    let token = newest.linked?.registrationToken.map { ", token \($0)" } ?? ""
                    return (page.total ?? 1, newest, "at \(newest.receivedAt)\(token)")
                }
            }
            waitFor(
                kind, wanted: wanted, timeout: timeout, start: start, allowed: allowed, reply: reply,
                earlier: origin.map { ($0, earlier) }
            ) { [filter] after, limit in
                try store.read { reader in
                    let last = try reader.lastEventID()
                    return (try reader.events(matching: filter, after: after, limit: limit, upTo: last).events, last)
                }
            }
        default:  // .request, the last of ``WaitRegistry/kinds``
            try AdminResponse.allowOnly(query, Self.waitKeys + ["endpoint", "status", "app"])
            var filter = try Self.journalFilter(query.filter { $0.key != "since" })
            filter.since = since
            let start = fromNow ? try store.read { $0.lastJournalID() } : mark?.request ?? 0
            let allowed = Self.allowed([
                .endpoint: filter.endpoint, .status: filter.status.map(String.init), .app: filter.appKey,
            ])
            let earlier: Earlier<JournalEntry> = { [store, filter] in
                let page = try store.read {
                    try $0.journalPage(.newestFirst(before: nil), limit: 1, filter: filter, upTo: start)
                }
                return page.requests.first.map { (page.total ?? 1, $0, "at \($0.receivedAt)") }
            }
            waitFor(
                kind, wanted: wanted, timeout: timeout, start: start, allowed: allowed, reply: reply,
                earlier: origin.map { ($0, earlier) }, app: filter.appKey
            ) { [filter] after, limit in
                try store.read { reader in
                    let last = reader.lastJournalID()
                    return (
                        try reader.journalPage(after: after, limit: limit, filter: filter, upTo: last).requests, last
                    )
                }
            }
        }
    }

    private static let waitKeys = ["for", "count", "timeout", "since"]

    /// Where a wait began counting, when it was not from a time it was given: its call, or a mark.
    private enum WaitOrigin: Sendable {
        case call
        case mark(String)
    }

    /// Reads the matching items that arrived before a wait began: how many, the newest, and when (and for
    /// which token) it came; nil when there are none.
    private typealias Earlier<Item> = @Sendable () throws -> (count: Int, newest: Item, description: String)?

    /// Waits for `wanted` items; each look reads only what was committed since the previous one. A
    /// timeout names what `earlier` finds, so a wait called after its event says how to count it, and an
    /// `app` filter no application has at that moment (one may be added during the wait).
    private func waitFor<Item: Codable & Sendable>(
        _ kind: StreamEventType, wanted: Int, timeout: Int, start: Int64, allowed: [ChangeFact: Set<String>],
        reply: ReplyChannel, earlier: (origin: WaitOrigin, read: Earlier<Item>)?, app: String? = nil,
        look: @escaping WaitProgress<Item>.Look
    ) {
        let progress = WaitProgress<Item>(cursor: start)
        waits.wait(for: kind, allowed: allowed, timeoutMilliseconds: timeout, reply: reply) { timedOut in
            do {
                let found = try progress.advance(wanted: wanted, look)
                let satisfied = found.count >= wanted
                return WaitRegistry.Check(satisfied: satisfied) {
                    guard !satisfied else {
                        return AdminResponse.json(
                            .ok, WaitAnswer(kind: kind.rawValue, wanted: wanted, count: found.count, items: found))
                    }
                    var error = "timed out after \(timeout) ms: saw \(found.count) of \(wanted) \(kind.rawValue)"
                    var before: WaitAnswer<Item>.Earlier?
                    if let earlier {
                        switch earlier.origin {
                        case .call: error += " since the wait began"
                        case .mark(let name): error += " since mark \(name)"
                        }
                        if let found = try? earlier.read() {
                            before = WaitAnswer.Earlier(count: found.count, newest: found.newest, include: "since=0")
                            error += Self.earlierWords(kind, earlier.origin, found.count, found.description)
                        }
                    }
                    if let app, let unknown = try? unknownApplication(app) { error += "; " + unknown }
                    let answer = WaitAnswer(
                        kind: kind.rawValue, wanted: wanted, count: found.count, items: found, error: error,
                        earlier: before)
                    return AdminResponse.json(.requestTimeout, answer)
                }
            } catch {
                return WaitRegistry.Check(satisfied: timedOut) {
                    AdminError(.internalServerError, "\(error)").response
                }
            }
        }
    }

    /// What a timeout says of the matching items that came before the wait's start: how to count them, and
    /// for a registration before a mark, why the SDK did not send it again.
    private static func earlierWords(_ kind: StreamEventType, _ origin: WaitOrigin, _ count: Int, _ newest: String)
        -> String
    {
        switch origin {
        case .call:
            return "; \(count) matching \(kind.rawValue) arrived before it (the newest \(newest)): add since=0 to "
                + "count every one kept, or since=<mark or RFC 3339 time> to count from then"
        case .mark(let name):
            var words =
                "; \(count) matching \(kind.rawValue) arrived before the mark (the newest \(newest)): take the mark "
                + "before the action, or add since=0 to count every one kept"
            if kind == .registration {
                words +=
                    ". The device was registered before \(name): the AEP extension sends no registration identical "
                    + "to its last one (same token, userKey and params), across launches, so an installed app that "
                    + "registers again as before sends nothing; wait for a registration only where the token, userKey "
                    + "or params change, or look the device up (GET /_mock/devices)"
            }
            return words
        }
    }

    /// `no application has the key 'K' (keys: …)` when none has `key`, else nil.
    func unknownApplication(_ key: String) throws -> String? {
        guard try store.application(key: key) == nil else { return nil }
        let keys = try store.read { try $0.applications() }.map(\.integrationKey).sorted()
        return "no application has the key '\(key)' (keys: \(keys.isEmpty ? "none" : keys.joined(separator: ", ")))"
    }

    /// The filters given, as the values each fact may have.
    private static func allowed(_ filters: [ChangeFact: String?]) -> [ChangeFact: Set<String>] {
        filters.compactMapValues { $0.map { [$0] } }
    }

    /// `timeout`: a duration (`500ms`, `5s`, a bare number is seconds), at most 5 minutes; default 5 s.
    static func timeout(_ text: String?) throws -> Int {
        guard let text else { return 5000 }
        guard let milliseconds = try? parseDuration(text), milliseconds <= 300_000 else {
            throw AdminError(.badRequest, "timeout must be a duration up to 5m, e.g. 500ms or 5s")
        }
        return milliseconds
    }

    /// `app`, `platform`, `userKey`, `token`, `param.<name>`.
    static func deviceFilter(_ query: [String: String]) throws -> DeviceFilter {
        var filter = DeviceFilter()
        filter.applicationKey = query["app"]
        filter.userKey = query["userKey"]
        filter.registrationToken = query["token"]
        if let platform = query["platform"] {
            guard let value = Platform(rawValue: platform) else {
                throw AdminError(.badRequest, "platform must be 'ios' or 'android'")
            }
            filter.platform = value
        }
        filter.params = query.filter { $0.key.hasPrefix("param.") }.sorted { $0.key < $1.key }
            .map { (String($0.key.dropFirst("param.".count)), $0.value) }
        guard filter.params.count <= 16 else { throw AdminError(.badRequest, "at most 16 param filters") }
        return filter
    }

    /// `endpoint`, `status`, `app`, `since`.
    static func journalFilter(_ query: [String: String]) throws -> JournalFilter {
        var filter = JournalFilter(endpoint: query["endpoint"])
        filter.appKey = query["app"].map(ClientText.key)  // as the journal keeps it
        if query["status"] != nil {
            filter.status = Int(try AdminResponse.integer(query, "status", in: 0...599, default: 0))
        }
        filter.since = try query["since"].map(timestamp)
        return filter
    }
}
