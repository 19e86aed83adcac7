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
        /// The item, as the admin API shows it (JSON).
        package let data: String
        /// What the filters compare (`app`, `token`, `platform`, `endpoint`, `status`, …).
        package let facts: [String: String]

        /// The event in the text/event-stream format.
        var text: String { "id: \(id)\nevent: \(type)\ndata: \(data)\n\n" }
    }

    /// What a stream wants: event types (none: all) and, per fact, the value it must have.
    package struct Filter: Sendable {
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
        var cursors: (registration: Int64, event: Int64, journal: Int64, push: Int64)?
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
        let overflow = Event(
            id: 0, type: "overflow",
            data: #"{"error":"this client read too slowly; the stream was ended. Reconnect with Last-Event-ID."}"#,
            facts: [:])
        let stream = ResponseStream(
            bufferLimit: bufferLimit, overflowChunk: Array("event: overflow\ndata: \(overflow.data)\n\n".utf8)
        ) { [weak self] in self?.unsubscribe(id) }
        queue.async { [self] in
            activate()
            // Catch up on what is committed, so the replay and the live events join without a hole.
            collect()
            state.withLock { state in
                var backlog: [Event] = []
                if let after {
                    if after >= state.nextID {
                        // A cursor from another run of the server (ids start again at each start).
                        let gap =
                            #"{"error":"event \#(after) is not from this run of the server; reload from the admin API","resumeFrom":\#(state.nextID)}"#
                        backlog.append(Event(id: state.nextID - 1, type: "gap", data: gap, facts: [:]))
                    } else if after + 1 < state.firstKept {
                        let gap =
                            #"{"error":"events after \#(after) are no longer kept; reload from the admin API","resumeFrom":\#(state.firstKept)}"#
                        backlog.append(Event(id: state.firstKept - 1, type: "gap", data: gap, facts: [:]))
                    }
                    backlog += state.ring.filter { $0.id > after && filter.matches($0) }
                }
                state.subscribers[id] = Subscriber(stream: stream, filter: filter)
                // A comment first, so the client sees the stream open before any event.
                stream.write(
                    Array((": campaign-mock event stream\nretry: 1000\n\n" + backlog.map(\.text).joined()).utf8))
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

    /// Starts reading changes, if it was idle: from what is committed now, with a fresh ring.
    private func activate() {
        guard !active.load(ordering: .acquiring) else { return }
        let cursors = try? store.read { reader in
            (
                try reader.lastRegistrationID(), try reader.lastEventID(), try reader.lastJournalID(),
                try reader.lastPushID()
            )
        }
        state.withLock { state in
            state.cursors = cursors ?? (0, 0, 0, 0)
            state.ring.removeAll()
            state.firstKept = state.nextID
        }
        active.store(true, ordering: .releasing)
    }

    // MARK: - Publishing

    /// Something was committed: read it, soon, on the hub's queue (one read per burst). Cheap when idle.
    package func changed() {
        guard active.load(ordering: .relaxed) else { return }
        let schedule = state.withLock { state in
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if schedule { queue.async { [self] in collect() } }
    }

    /// Publishes a change that is not a stored row (an application, a fault, a reset).
    package func publish(_ type: String, _ item: some Encodable, facts: [String: String] = [:]) {
        guard active.load(ordering: .relaxed) else { return }
        let data = JSONText.compact(item)
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

    /// Reads what was committed since the cursors and publishes it, oldest first.
    private func collect() {
        state.withLock { $0.scheduled = false }
        guard let cursors = state.withLock({ $0.cursors }) else { return }
        let batch = 1000
        do {
            let (registrations, events, requests, pushes) = try store.read { reader in
                (
                    try reader.registrations(
                        after: cursors.registration, since: nil, matching: DeviceFilter(), limit: batch),
                    try reader.events(matching: EventFilter(), after: cursors.event, limit: batch).events,
                    try reader.journalPage(after: cursors.journal, limit: batch).requests,
                    try reader.pushes(after: cursors.push, limit: batch)
                )
            }
            var items: [(time: String, order: Int, type: String, data: String, facts: [String: String])] = []
            for item in registrations {
                items.append(
                    (
                        item.receivedAt, 0, "registration", JSONText.compact(item),
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
                items.append((item.receivedAt, 1, item.type, JSONText.compact(item), facts))
            }
            for item in pushes {
                var facts: [String: String] = [:]
                facts["app"] = item.messages.first?.app
                facts["token"] = item.messages.first?.registrationToken
                items.append((item.createdAt, 2, "push", JSONText.compact(item), facts))
            }
            for item in requests {
                var facts = ["endpoint": item.endpoint, "status": String(item.status)]
                facts["app"] = item.appKey
                items.append((item.receivedAt, 3, "request", JSONText.compact(item), facts))
            }
            // One order for all kinds: by time, then the change before the request that made it.
            items.sort { ($0.time, $0.order) < ($1.time, $1.order) }
            state.withLock { state in
                state.cursors = (
                    registrations.last?.id ?? cursors.registration, events.last?.id ?? cursors.event,
                    requests.last?.id ?? cursors.journal, pushes.last?.id ?? cursors.push
                )
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

    private func emit(_ items: [(type: String, data: String, facts: [String: String])]) {
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
            return state.subscribers.values.compactMap { subscriber in
                let text = published.filter(subscriber.filter.matches).map(\.text).joined()
                return text.isEmpty ? nil : (subscriber.stream, Array(text.utf8))
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
