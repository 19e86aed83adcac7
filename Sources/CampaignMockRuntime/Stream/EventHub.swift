package import CampaignMockCore
package import CampaignMockModel
package import CampaignMockStorage
import CampaignMockSupport
import Dispatch
import Synchronization

/// `GET /_mock/stream`: every change as a Server-Sent Event, as it happens.
///
/// Stored changes (registrations and their devices, tracking hits, journaled requests, pushes) come from
/// the store's writer: while a stream is open, it notes each row it writes and hands a batch's rows on
/// right after the commit (``CommittedChange``), in commit order, never a rolled-back one. The hub gathers
/// them for `batchMilliseconds` and gives each the next event id; each carries what was written, so
/// publishing it reads nothing back. Changes that are not stored rows (an application added, a fault
/// fired, a reset) are published by the code that makes them. Recent events stay in a ring of
/// `ringCapacity`, so a client that reconnects with `Last-Event-ID` (or `?since=`) gets exactly what it
/// missed. Nothing is noted while no stream is open and none closed within `graceMilliseconds`: an idle
/// console costs nothing per request. A resume from before the ring (or from before such an idle time)
/// first gets a `gap` event, and the client reloads from the admin API.
package final class EventHub: Sendable {
    /// One published event.
    package struct Event: Sendable {
        package let id: UInt64
        package let type: StreamEventType
        /// What the filters compare.
        package let facts: Facts
        /// The item as the admin API shows it (JSON): the event's `data:` line.
        let data: [UInt8]

        init(id: UInt64, type: StreamEventType, data: [UInt8], facts: Facts) {
            self.id = id
            self.type = type
            self.data = data
            self.facts = facts
        }

        init(id: UInt64, type: StreamEventType, data: String, facts: Facts) {
            self.init(id: id, type: type, data: Array(data.utf8), facts: facts)
        }

        /// Appends the event in the text/event-stream format (at most 64 bytes more than `data`). Streams
        /// with the same filter share the text, so it is written once per filter, not again per stream.
        func write(to bytes: inout [UInt8]) {
            bytes += "id: ".utf8
            ASCII.appendDecimal(Int64(id), to: &bytes)
            bytes += "\nevent: ".utf8
            bytes += type.rawValue.utf8
            bytes += "\ndata: ".utf8
            bytes += data
            bytes += "\n\n".utf8
        }
    }

    /// What a stream may filter events on besides their type: the query parameters of `/_mock/stream`.
    package enum Fact: String, CaseIterable, Sendable {
        case app, token, platform, userKey, endpoint, status, deliveryId
    }

    /// The facts of one event. A field per fact rather than a collection: it is made for every event, and
    /// fields cost no allocation.
    package struct Facts: Sendable, ExpressibleByDictionaryLiteral {
        private var app, token, platform, userKey, endpoint, status, deliveryId: String?

        package init(dictionaryLiteral elements: (Fact, String)...) {
            for (fact, value) in elements { self[fact] = value }
        }

        package subscript(fact: Fact) -> String? {
            get {
                switch fact {
                case .app: app
                case .token: token
                case .platform: platform
                case .userKey: userKey
                case .endpoint: endpoint
                case .status: status
                case .deliveryId: deliveryId
                }
            }
            set {
                switch fact {
                case .app: app = newValue
                case .token: token = newValue
                case .platform: platform = newValue
                case .userKey: userKey = newValue
                case .endpoint: endpoint = newValue
                case .status: status = newValue
                case .deliveryId: deliveryId = newValue
                }
            }
        }
    }

    /// What a stream wants: event types (none: all) and, per fact, the value it must have.
    package struct Filter: Sendable, Hashable {
        package var types: Set<StreamEventType> = []
        package var facts: [Fact: String] = [:]

        package init(types: Set<StreamEventType> = [], facts: [Fact: String] = [:]) {
            self.types = types
            self.facts = facts
        }

        func matches(_ event: Event) -> Bool {
            (types.isEmpty || types.contains(event.type))
                && facts.allSatisfy { fact, value in event.facts[fact] == value }
        }
    }

    /// The last events, oldest first, for clients that resume. A circular buffer: once full, each new
    /// event takes the oldest one's place, and nothing is moved.
    private struct Ring {
        let capacity: Int
        private var slots: [Event] = []
        /// Where the oldest event is once the buffer is full.
        private var oldest = 0

        init(capacity: Int) {
            precondition(capacity > 0, "the event ring keeps at least one event")
            self.capacity = capacity
        }

        var first: Event? { slots.isEmpty ? nil : slots[oldest] }

        mutating func append(_ event: Event) {
            if slots.count < capacity {
                slots.append(event)
            } else {
                slots[oldest] = event
                oldest = (oldest + 1) % capacity
            }
        }

        mutating func removeAll() {
            slots.removeAll()
            oldest = 0
        }

        /// The events after `id`, oldest first.
        func events(after id: UInt64) -> [Event] {
            (slots[oldest...] + slots[..<oldest]).filter { $0.id > id }
        }
    }

    private struct Subscriber {
        let stream: ResponseStream
        let filter: Filter
    }

    private struct State {
        var ring: Ring
        var nextID: UInt64 = 1
        /// The oldest id the ring holds without a hole (after an idle time, the first id recorded again).
        var firstKept: UInt64 = 1
        var subscribers: [UInt64: Subscriber] = [:]
        /// Committed rows not published yet.
        var pending: [CommittedChange] = []
        var lastSubscriberLeftAt: UInt64 = 0
        var scheduled = false

        init(ringCapacity: Int) { ring = Ring(capacity: ringCapacity) }
    }

    private let store: Store
    /// Also handed every committed batch (the integration checks); while there is one, the writer notes
    /// rows all the time, not only while a stream is open.
    private let observer: (@Sendable ([CommittedChange]) -> Void)?
    private let state: Mutex<State>
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
        bufferLimit: Int = 1 << 20, observer: (@Sendable ([CommittedChange]) -> Void)? = nil
    ) {
        self.store = store
        self.observer = observer
        self.ringCapacity = ringCapacity
        state = Mutex(State(ringCapacity: ringCapacity))
        self.graceMilliseconds = graceMilliseconds
        self.bufferLimit = bufferLimit
        self.heartbeatMilliseconds = heartbeatMilliseconds
        store.publishCommits { [weak self] changes in self?.committed(changes) }
        if observer != nil { try? store.recordChanges(true) }
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
            bufferLimit: bufferLimit,
            overflowChunk: Array("event: \(StreamEventType.overflow.rawValue)\ndata: \(overflow)\n\n".utf8)
        ) { [weak self] in self?.unsubscribe(id) }
        queue.async { [self] in
            activate()
            // Publish what is committed, so the replay and the live events join without a hole.
            flush()
            state.withLock { state in
                var backlog: [Event] = []
                if let after {
                    if after >= state.nextID {
                        // A cursor from another run of the server (ids start again at each start).
                        let gap =
                            #"{"error":"event \#(after) is not from this run of the server; reload from the admin API","resumeFrom":\#(state.nextID)}"#
                        backlog.append(Event(id: state.nextID - 1, type: .gap, data: gap, facts: [:]))
                    } else if after + 1 < state.firstKept {
                        let gap =
                            #"{"error":"events after \#(after) are no longer kept; reload from the admin API","resumeFrom":\#(state.firstKept)}"#
                        backlog.append(Event(id: state.firstKept - 1, type: .gap, data: gap, facts: [:]))
                    }
                    backlog += state.ring.events(after: after).filter(filter.matches)
                }
                state.subscribers[id] = Subscriber(stream: stream, filter: filter)
                // A comment first, so the client sees the stream open before any event.
                var opening = Array(": campaign-mock event stream\nretry: 1000\n\n".utf8)
                for event in backlog { event.write(to: &opening) }
                stream.write(opening)
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

    /// Starts, if it was idle: the writer notes rows from now on, the ring starts afresh. On the queue.
    private func activate() {
        guard !active.load(ordering: .acquiring) else { return }
        // Active first: every batch handed on from now is kept (recording may be on already).
        active.store(true, ordering: .releasing)
        // Waits for the writer: every row committed after this is handed on.
        do {
            try store.recordChanges(true)
        } catch {  // the store is closing
            active.store(false, ordering: .releasing)
            return
        }
        state.withLock { state in
            state.ring.removeAll()
            state.firstKept = state.nextID
        }
    }

    /// Stops when no stream is open and none closed within the grace time. On the queue.
    private func deactivateIfIdle() {
        let idle = state.withLock { state in
            state.subscribers.isEmpty
                && Clock.monotonicNanoseconds() - state.lastSubscriberLeftAt > UInt64(graceMilliseconds) * 1_000_000
        }
        guard idle, active.load(ordering: .acquiring) else { return }
        active.store(false, ordering: .releasing)
        if observer == nil { try? store.recordChanges(false) }
        // Nothing is handed on after the writer stopped noting; what came before is for nobody.
        state.withLock { $0.pending.removeAll() }
    }

    // MARK: - Publishing

    /// A batch of rows committed (on the writer thread): they are published soon, on the hub's queue.
    /// Publishing waits `batchMilliseconds`, so a busy server's changes go out in batches (one write per
    /// stream) rather than one by one.
    private func committed(_ changes: [CommittedChange]) {
        defer { observer?(changes) }  // after: what it publishes about these rows comes after them
        guard active.load(ordering: .acquiring) else { return }
        let schedule = state.withLock { state in
            state.pending += changes
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if schedule {
            queue.asyncAfter(deadline: .now() + .milliseconds(Self.batchMilliseconds)) { [self] in flush() }
        }
    }

    /// How long changes gather before they are sent.
    static let batchMilliseconds = 20

    /// Publishes a change that is not a stored row (an application, a fault, a reset).
    package func publish(_ type: StreamEventType, _ item: some Encodable, facts: Facts = [:]) {
        guard active.load(ordering: .relaxed) else { return }
        let data = Array(JSONText.compact(item).utf8)
        queue.async { [self] in
            flush()
            emit([Published(type: type, data: data, facts: facts)])
        }
    }

    /// Ends every stream with a `shutdown` event (the server is stopping).
    package func finishAll() {
        queue.sync {
            let streams = state.withLock { state in
                defer { state.subscribers.removeAll() }
                return state.subscribers.values.map(\.stream)
            }
            for stream in streams {
                stream.finish(Array("event: \(StreamEventType.shutdown.rawValue)\ndata: {}\n\n".utf8))
            }
        }
    }

    /// Publishes the committed rows not published yet, in commit order. On the queue.
    private func flush() {
        let changes = state.withLock { state in
            state.scheduled = false
            defer { state.pending.removeAll() }
            return state.pending
        }
        guard !changes.isEmpty else { return }
        emit(published(changes))
    }

    /// One event to publish: its type, its data (the item as the admin API shows it) and its facts.
    private struct Published: Sendable {
        let type: StreamEventType
        let data: [UInt8]
        let facts: Facts
    }

    /// The events for `changes`, made from what was written: nothing is read back.
    private func published(_ changes: [CommittedChange]) -> [Published] {
        changes.map { change in
            switch change {
            case .request(let id, let record): Self.published(id, record)
            case .hit(let id, let hit): Self.published(TrackingEvent(id: id, hit: hit))
            case .registration(let notice): Self.published(notice)
            case .device(let device): Self.published(device)
            case .push(let push): Self.published(push)
            case .send(let send): Self.published(send)
            }
        }
    }

    private static func published(_ id: Int64, _ record: JournalRecord) -> Published {
        var facts: Facts = [.endpoint: record.endpoint, .status: String(record.status)]
        if let app = record.appKey { facts[.app] = app }
        return Published(type: .request, data: record.summaryJSON(id: id), facts: facts)
    }

    private static func published(_ event: TrackingEvent) -> Published {
        var facts: Facts = [.deliveryId: event.deliveryId]
        if let link = event.linked {
            facts[.token] = link.registrationToken
            facts[.app] = link.integrationKey
        }
        return Published(type: StreamEventType(trackingTag: event.tag) ?? .receive, data: event.json, facts: facts)
    }

    private static func published(_ registration: RegistrationNotice) -> Published {
        Published(
            type: .registration, data: Array(JSONText.compact(registration).utf8),
            facts: [
                .app: registration.integrationKey, .token: registration.registrationToken,
                .platform: registration.platform.rawValue, .userKey: registration.userKey,
            ])
    }

    private static func published(_ device: DeviceSubscription) -> Published {
        Published(
            type: .device, data: Array(JSONText.compact(device).utf8),
            facts: [
                .app: device.application.integrationKey, .token: device.registrationToken,
                .platform: device.application.platform.rawValue, .userKey: device.userKey,
            ])
    }

    private static func published(_ push: ComposedPush) -> Published {
        var facts: Facts = [:]
        facts[.app] = push.messages.first?.app
        facts[.token] = push.messages.first?.registrationToken
        return Published(type: .push, data: Array(JSONText.compact(push).utf8), facts: facts)
    }

    private static func published(_ send: PushSend) -> Published {
        Published(
            type: .send, data: Array(JSONText.compact(send).utf8),
            facts: [.app: send.app, .token: send.registrationToken])
    }

    private func emit(_ items: [Published]) {
        guard !items.isEmpty else { return }
        let deliveries: [(ResponseStream, [UInt8])] = state.withLock { state in
            var published: [Event] = []
            published.reserveCapacity(items.count)
            for item in items {
                let event = Event(id: state.nextID, type: item.type, data: item.data, facts: item.facts)
                published.append(event)
                state.ring.append(event)
                state.nextID += 1
            }
            if let oldest = state.ring.first, oldest.id > state.firstKept { state.firstKept = oldest.id }
            // Streams with the same filter (every console's) share one text, made once.
            var texts: [Filter: [UInt8]] = [:]
            return state.subscribers.values.compactMap { subscriber in
                let bytes =
                    texts[subscriber.filter]
                    ?? {
                        let matching = published.filter(subscriber.filter.matches)
                        var bytes: [UInt8] = []
                        bytes.reserveCapacity(matching.reduce(0) { $0 + $1.data.count + 64 })
                        for event in matching { event.write(to: &bytes) }
                        texts[subscriber.filter] = bytes
                        return bytes
                    }()
                return bytes.isEmpty ? nil : (subscriber.stream, bytes)
            }
        }
        for (stream, bytes) in deliveries { stream.write(bytes) }
    }

    private func heartbeat() {
        let streams = state.withLock { $0.subscribers.values.map(\.stream) }
        let comment = Array(
            ": heartbeat \(HTTPDate.iso8601(microsecondsSince1970: Clock.wallClockMicroseconds()))\n\n".utf8)
        for stream in streams { stream.write(comment) }
        deactivateIfIdle()
    }
}
