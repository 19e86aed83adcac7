package import CampaignMockCore
import Dispatch
import Synchronization

/// `GET /_mock/stream`: every change as a Server-Sent Event, as it happens.
///
/// Stored changes (registrations, tracking hits, journaled requests, pushes) are read from the store
/// after they commit, the way `/_mock/wait` reads them: the hub keeps a cursor per kind and, after each
/// burst of commits, reads what is new, oldest first, and gives each item the next event id. Changes
/// that are not stored rows (an application added, a fault fired, a reset) are published by the code
/// that makes them. Recent events stay in a ring of `ringCapacity`, so a client that reconnects with
/// `Last-Event-ID` (or `?since=`) gets exactly what it missed. Nothing is read while no stream is open
/// and none closed within `graceMilliseconds`: an idle console costs one atomic load per commit. A resume
/// from before the ring (or from before such an idle time) first gets a `gap` event, and the client
/// reloads from the admin API.
package final class EventHub: Sendable {
    /// One published event.
    package struct Event: Sendable {
        package let id: UInt64
        package let type: String
        /// What the filters compare (`app`, `token`, `platform`, `endpoint`, `status`, …).
        package let facts: [String: String]

        /// The event in the text/event-stream format, made once for every stream; its `data:` line is
        /// the item as the admin API shows it (JSON).
        let bytes: [UInt8]

        init(id: UInt64, type: String, data: [UInt8], facts: [String: String]) {
            self.id = id
            self.type = type
            self.facts = facts
            var bytes: [UInt8] = []
            bytes.reserveCapacity(data.count + type.utf8.count + 32)
            bytes += "id: ".utf8
            bytes += String(id).utf8
            bytes += "\nevent: ".utf8
            bytes += type.utf8
            bytes += "\ndata: ".utf8
            bytes += data
            bytes += "\n\n".utf8
            self.bytes = bytes
        }

        init(id: UInt64, type: String, data: String, facts: [String: String]) {
            self.init(id: id, type: type, data: Array(data.utf8), facts: facts)
        }
    }

    /// What a stream wants: event types (none: all) and, per fact, the value it must have.
    package struct Filter: Sendable, Hashable {
        package var types: Set<String> = []
        package var facts: [String: String] = [:]

        package init(types: Set<String> = [], facts: [String: String] = [:]) {
            self.types = types
            self.facts = facts
        }

        func matches(_ event: Event) -> Bool {
            (types.isEmpty || types.contains(event.type))
                && facts.allSatisfy { key, value in event.facts[key] == value }
        }
    }

    /// The event types, for documentation and validation.
    package static let types = ["registration", "receive", "open", "request", "push", "fault", "app", "reset", "gap"]

    /// The stored kinds, each read from its table.
    enum Group: CaseIterable {
        case registrations, tracking, journal, pushes

        /// The groups a filter needs (all when it names no type).
        static func needed(by filter: Filter) -> Set<Group> {
            guard !filter.types.isEmpty else { return Set(allCases) }
            var groups: Set<Group> = []
            if filter.types.contains("registration") { groups.insert(.registrations) }
            if filter.types.contains("receive") || filter.types.contains("open") { groups.insert(.tracking) }
            if filter.types.contains("request") { groups.insert(.journal) }
            if filter.types.contains("push") { groups.insert(.pushes) }
            return groups
        }
    }

    private struct Subscriber {
        let stream: ResponseStream
        let filter: Filter
    }

    private struct State {
        var ring: [Event] = []
        var nextID: UInt64 = 1
        /// The oldest id the ring holds without a hole (after an idle time, the first id recorded again).
        var firstKept: UInt64 = 1
        var subscribers: [UInt64: Subscriber] = [:]
        /// Per stored kind the hub reads (those some stream asked for since it became active), the last
        /// row read, and the first event id from which that kind is complete.
        var cursors: [Group: Int64] = [:]
        var completeFrom: [Group: UInt64] = [:]
        var lastSubscriberLeftAt: UInt64 = 0
        var scheduled = false
    }

    private let store: Store
    private let state = Mutex(State())
    private let active = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "campaign-mock.stream")
    private let subscriberIDs = Atomic<UInt64>(0)
    private let heartbeatMilliseconds: Int
    package let ringCapacity: Int
    package let graceMilliseconds: Int
    /// Bytes a slow reader may have waiting before its stream is cut.
    package let bufferLimit: Int

    package init(
        store: Store, heartbeatMilliseconds: Int = 15_000, ringCapacity: Int = 10_000, graceMilliseconds: Int = 300_000,
        bufferLimit: Int = 1 << 20
    ) {
        self.store = store
        self.ringCapacity = ringCapacity
        self.graceMilliseconds = graceMilliseconds
        self.bufferLimit = bufferLimit
        self.heartbeatMilliseconds = heartbeatMilliseconds
        scheduleHeartbeat()
    }

    /// A comment on every open stream every `heartbeatMilliseconds`, so proxies and clients see it alive.
    private func scheduleHeartbeat() {
        queue.asyncAfter(deadline: .now() + .milliseconds(heartbeatMilliseconds)) { [weak self] in
            guard let self else { return }
            heartbeat()
            scheduleHeartbeat()
        }
    }

    /// Open streams.
    package var count: Int { state.withLock { $0.subscribers.count } }

    // MARK: - Subscribing

    /// A new stream, answered with the events after `after` (nil: only new ones) that match `filter`.
    package func subscribe(filter: Filter, after: UInt64?) -> ResponseStream {
        let id = subscriberIDs.wrappingAdd(1, ordering: .relaxed).newValue
        let overflow =
            #"{"error":"this client read too slowly; the stream was ended. Reconnect with Last-Event-ID."}"#
        let stream = ResponseStream(
            bufferLimit: bufferLimit, overflowChunk: Array("event: overflow\ndata: \(overflow)\n\n".utf8)
        ) { [weak self] in self?.unsubscribe(id) }
        queue.async { [self] in
            activate()
            // Catch up on what is committed, so the replay and the live events join without a hole.
            collect()
            startReading(Group.needed(by: filter))
            state.withLock { state in
                var backlog: [Event] = []
                if let after {
                    // Events of a kind this stream wants are complete from the latest of these ids.
                    let complete = Group.needed(by: filter).compactMap { state.completeFrom[$0] }.max() ?? 1
                    let kept = max(state.firstKept, complete)
                    if after >= state.nextID {
                        // A cursor from another run of the server (ids start again at each start).
                        let gap =
                            #"{"error":"event \#(after) is not from this run of the server; reload from the admin API","resumeFrom":\#(state.nextID)}"#
                        backlog.append(Event(id: state.nextID - 1, type: "gap", data: gap, facts: [:]))
                    } else if after + 1 < kept {
                        let gap =
                            #"{"error":"events after \#(after) are no longer kept; reload from the admin API","resumeFrom":\#(kept)}"#
                        backlog.append(Event(id: kept - 1, type: "gap", data: gap, facts: [:]))
                    }
                    backlog += state.ring.filter { $0.id > after && filter.matches($0) }
                }
                state.subscribers[id] = Subscriber(stream: stream, filter: filter)
                // A comment first, so the client sees the stream open before any event.
                stream.write(Array(": campaign-mock event stream\nretry: 1000\n\n".utf8) + backlog.flatMap(\.bytes))
            }
        }
        return stream
    }

    private func unsubscribe(_ id: UInt64) {
        state.withLock { state in
            state.subscribers[id] = nil
            if state.subscribers.isEmpty { state.lastSubscriberLeftAt = Clock.monotonicNanoseconds() }
        }
    }

    /// Starts, if it was idle, with a fresh ring and no kind read yet.
    private func activate() {
        guard !active.load(ordering: .acquiring) else { return }
        state.withLock { state in
            state.cursors = [:]
            state.completeFrom = [:]
            state.ring.removeAll()
            state.firstKept = state.nextID
        }
        active.store(true, ordering: .releasing)
    }

    /// Reads `groups` from now on, those not read yet from what is committed now: a kind no stream asked
    /// for costs nothing (until the hub goes idle, a kind once asked for stays read, so a client that
    /// reconnects misses nothing).
    private func startReading(_ groups: Set<Group>) {
        let new = state.withLock { state in groups.filter { state.cursors[$0] == nil } }
        guard !new.isEmpty else { return }
        let last = try? store.read { reader in
            (
                try reader.lastRegistrationID(), try reader.lastEventID(), try reader.lastJournalID(),
                try reader.lastPushID()
            )
        }
        state.withLock { state in
            for group in new {
                switch group {
                case .registrations: state.cursors[group] = last?.0 ?? 0
                case .tracking: state.cursors[group] = last?.1 ?? 0
                case .journal: state.cursors[group] = last?.2 ?? 0
                case .pushes: state.cursors[group] = last?.3 ?? 0
                }
                state.completeFrom[group] = state.nextID
            }
        }
    }

    // MARK: - Publishing

    /// Something was committed: read it soon, on the hub's queue. Reads are at least `batchMilliseconds`
    /// apart, so a busy server's changes go out in batches (one read, one write per stream) rather than one
    /// by one. Cheap when idle: one atomic load.
    package func changed() {
        guard active.load(ordering: .relaxed) else { return }
        let schedule = state.withLock { state in
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if schedule {
            queue.asyncAfter(deadline: .now() + .milliseconds(Self.batchMilliseconds)) { [self] in collect() }
        }
    }

    /// How long changes gather before they are read and sent.
    static let batchMilliseconds = 20

    /// Publishes a change that is not a stored row (an application, a fault, a reset).
    package func publish(_ type: String, _ item: some Encodable, facts: [String: String] = [:]) {
        guard active.load(ordering: .relaxed) else { return }
        let data = Array(JSONText.compact(item).utf8)
        queue.async { [self] in
            collect()
            emit([(type, data, facts)])
        }
    }

    /// Ends every stream with a `shutdown` event (the server is stopping).
    package func finishAll() {
        queue.sync {
            let streams = state.withLock { state in
                defer { state.subscribers.removeAll() }
                return state.subscribers.values.map(\.stream)
            }
            for stream in streams { stream.finish(Array("event: shutdown\ndata: {}\n\n".utf8)) }
        }
    }

    /// Reads what was committed since the cursors of the kinds read, and publishes it, oldest first.
    private func collect() {
        state.withLock { $0.scheduled = false }
        let cursors = state.withLock { $0.cursors }
        guard !cursors.isEmpty else { return }
        let batch = 1000
        do {
            let (registrations, events, requests, pushes) = try store.read { reader in
                (
                    try cursors[.registrations].map {
                        try reader.registrations(after: $0, since: nil, matching: DeviceFilter(), limit: batch)
                    } ?? [],
                    try cursors[.tracking].map {
                        try reader.events(matching: EventFilter(), after: $0, limit: batch).events
                    } ?? [],
                    try cursors[.journal].map { try reader.journalPage(after: $0, limit: batch).requests } ?? [],
                    try cursors[.pushes].map { try reader.pushes(after: $0, limit: batch) } ?? []
                )
            }
            var items: [(time: String, order: Int, type: String, data: [UInt8], facts: [String: String])] = []
            for item in registrations {
                items.append(
                    (
                        item.receivedAt, 0, "registration", Array(JSONText.compact(item).utf8),
                        [
                            "app": item.integrationKey, "token": item.registrationToken,
                            "platform": item.platform.rawValue, "userKey": item.userKey,
                        ]
                    ))
            }
            for item in events {
                var facts = ["deliveryId": item.deliveryId]
                facts["token"] = item.linked?.registrationToken
                facts["app"] = item.linked?.integrationKey
                items.append((item.receivedAt, 1, item.type, item.json, facts))
            }
            for item in pushes {
                var facts: [String: String] = [:]
                facts["app"] = item.messages.first?.app
                facts["token"] = item.messages.first?.registrationToken
                items.append((item.createdAt, 2, "push", Array(JSONText.compact(item).utf8), facts))
            }
            for item in requests {
                var facts = ["endpoint": item.endpoint, "status": String(item.status)]
                facts["app"] = item.appKey
                items.append((item.receivedAt, 3, "request", item.json, facts))
            }
            // One order for all kinds: by time, then the change before the request that made it.
            items.sort { ($0.time, $0.order) < ($1.time, $1.order) }
            state.withLock { state in
                if let last = registrations.last?.id { state.cursors[.registrations] = last }
                if let last = events.last?.id { state.cursors[.tracking] = last }
                if let last = requests.last?.id { state.cursors[.journal] = last }
                if let last = pushes.last?.id { state.cursors[.pushes] = last }
            }
            emit(items.map { ($0.type, $0.data, $0.facts) })
            if registrations.count == batch || events.count == batch || requests.count == batch
                || pushes.count == batch
            {
                collect()
            }
        } catch {
            // The store is closing; nothing to publish.
        }
    }

    private func emit(_ items: [(type: String, data: [UInt8], facts: [String: String])]) {
        guard !items.isEmpty else { return }
        let deliveries: [(ResponseStream, [UInt8])] = state.withLock { state in
            var published: [Event] = []
            for item in items {
                published.append(Event(id: state.nextID, type: item.type, data: item.data, facts: item.facts))
                state.nextID += 1
            }
            state.ring += published
            if state.ring.count > ringCapacity {
                state.ring.removeFirst(state.ring.count - ringCapacity)
                state.firstKept = state.ring.first?.id ?? state.nextID
            }
            // Streams with the same filter (every console's) share one text, made once.
            var texts: [Filter: [UInt8]] = [:]
            return state.subscribers.values.compactMap { subscriber in
                let bytes =
                    texts[subscriber.filter]
                    ?? {
                        var bytes: [UInt8] = []
                        for event in published where subscriber.filter.matches(event) { bytes += event.bytes }
                        texts[subscriber.filter] = bytes
                        return bytes
                    }()
                return bytes.isEmpty ? nil : (subscriber.stream, bytes)
            }
        }
        for (stream, bytes) in deliveries { stream.write(bytes) }
    }

    /// Stops reading changes when no stream is open and none closed within the grace time.
    private func deactivateIfIdle() {
        let idle = state.withLock { state in
            state.subscribers.isEmpty
                && Clock.monotonicNanoseconds() - state.lastSubscriberLeftAt > UInt64(graceMilliseconds) * 1_000_000
        }
        if idle { active.store(false, ordering: .releasing) }
    }

    private func heartbeat() {
        let streams = state.withLock { $0.subscribers.values.map(\.stream) }
        let comment = Array(
            ": heartbeat \(HTTPDate.iso8601(microsecondsSince1970: Clock.wallClockMicroseconds()))\n\n".utf8)
        for stream in streams { stream.write(comment) }
        deactivateIfIdle()
    }
}
