package import CampaignMockHTTP
package import CampaignMockModel
package import CampaignMockStorage
import CampaignMockSupport
import CampaignMockSystem
import Dispatch
import Synchronization

/// `GET /_mock/stream`: every change as a Server-Sent Event, as it happens.
///
/// Stored changes (registrations and their devices, tracking hits, journaled requests, pushes) come from
/// the store's sink: the writer hands a batch's rows on right after the commit (``CommittedChange``), in
/// commit order, never a rolled-back one. The hub gathers them for `batchMilliseconds` and gives each the
/// next event id; each carries what was written, so publishing it reads nothing back. Changes that are
/// not stored rows (an application added, a fault fired, a reset) are published by the code that makes
/// them. Recent events stay in a ring of `ringCapacity`, so a client that reconnects with `Last-Event-ID`
/// (or `?since=`) gets exactly what it missed. The hub keeps nothing while no stream is open and none
/// closed within `graceMilliseconds`: an idle console costs one atomic load per batch. A resume from
/// before the ring (or from before such an idle time) first gets a `gap` event, and the client reloads
/// from the admin API.
package final class EventHub: Sendable {
    /// One published event.
    package struct PublishedEvent: Sendable {
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

    /// The facts of one event a stream may filter on (``ChangeFact/streamFilters``). A field per fact
    /// rather than a collection: it is made for every event, and fields cost no allocation.
    package struct Facts: Sendable, ExpressibleByDictionaryLiteral {
        private var app, token, platform, userKey, endpoint, status, deliveryId: String?

        package init(dictionaryLiteral elements: (ChangeFact, String)...) {
            for (fact, value) in elements { self[fact] = value }
        }

        /// What `change` says of each fact a stream filters on.
        init(_ change: CommittedChange) {
            for fact in ChangeFact.streamFilters { self[fact] = change.value(of: fact) }
        }

        /// The value of a fact a stream filters on; nil for the others.
        package subscript(fact: ChangeFact) -> String? {
            get {
                switch fact {
                case .app: app
                case .token: token
                case .platform: platform
                case .userKey: userKey
                case .endpoint: endpoint
                case .status: status
                case .deliveryId: deliveryId
                case .messageValue, .messageUuid, .param: nil
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
                case .messageValue, .messageUuid, .param: break
                }
            }
        }
    }

    /// What a stream wants: event types (none: all) and, per fact, the value it must have.
    package struct Filter: Sendable, Hashable {
        package var types: Set<StreamEventType> = []
        package var facts: [ChangeFact: String] = [:]

        package init(types: Set<StreamEventType> = [], facts: [ChangeFact: String] = [:]) {
            self.types = types
            self.facts = facts
        }

        func matches(_ event: PublishedEvent) -> Bool {
            (types.isEmpty || types.contains(event.type))
                && facts.allSatisfy { fact, value in event.facts[fact] == value }
        }
    }

    /// The last events, oldest first, for clients that resume: at most `capacity` of them and `bytes` of
    /// their data (the oldest go first), so events of large registrations cannot make the ring hold hundreds
    /// of megabytes. The oldest are skipped by an index and cut off the array
    /// once they are half of it: nothing is moved per event.
    private struct Ring {
        let capacity: Int
        let byteBudget: Int
        /// Those before `oldest` are gone (nil: their data is freed at once).
        private var slots: [PublishedEvent?] = []
        private var oldest = 0
        private var bytes = 0

        init(capacity: Int, bytes: Int) {
            precondition(capacity > 0, "the event ring keeps at least one event")
            self.capacity = capacity
            byteBudget = bytes
        }

        var first: PublishedEvent? { oldest < slots.count ? slots[oldest] : nil }

        mutating func append(_ event: PublishedEvent) {
            slots.append(event)
            bytes += event.data.count
            while slots.count - oldest > capacity || (bytes > byteBudget && slots.count - oldest > 1) {
                bytes -= slots[oldest]?.data.count ?? 0
                slots[oldest] = nil
                oldest += 1
            }
            if oldest >= 1024 && oldest >= slots.count / 2 {
                slots.removeFirst(oldest)
                oldest = 0
            }
        }

        mutating func removeAll() {
            slots.removeAll()
            oldest = 0
            bytes = 0
        }

        /// The events after `id`, oldest first.
        func events(after id: UInt64) -> [PublishedEvent] {
            slots[oldest...].compactMap { $0 }.filter { $0.id > id }
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

        init(ringCapacity: Int, ringBytes: Int) { ring = Ring(capacity: ringCapacity, bytes: ringBytes) }
    }

    private let store: Store
    private let state: Mutex<State>
    private let active = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "campaign-mock.stream")
    private let subscriberIDs = Atomic<UInt64>(0)
    private let heartbeatMilliseconds: Int
    /// What the admin API adds to a device before it shows it (its trust for sending), so that a `device`
    /// event is the device as `GET /_mock/devices` lists it.
    private let deviceView = Mutex<DeviceView>(DeviceView { $0 })

    /// In a struct: a `Mutex` re-wraps a bare closure.
    private struct DeviceView {
        let apply: @Sendable (DeviceSubscription) -> DeviceSubscription
    }

    /// Has each `device` event show the device as `view` makes it (``deviceView``).
    package func showDevices(_ view: @escaping @Sendable (DeviceSubscription) -> DeviceSubscription) {
        deviceView.withLock { $0 = DeviceView(apply: view) }
    }
    package let ringCapacity: Int
    package let graceMilliseconds: Int
    /// Bytes a slow reader may have waiting before its stream is cut.
    package let bufferLimit: Int

    /// - Parameter ringBytes: the most the ring's events may hold in all (32 MiB: a thousand times a usual
    ///   registration's event).
    package init(
        store: Store, heartbeatMilliseconds: Int = 15_000, ringCapacity: Int = 10_000, ringBytes: Int = 32 << 20,
        graceMilliseconds: Int = 300_000, bufferLimit: Int = 1 << 20
    ) {
        self.store = store
        self.ringCapacity = ringCapacity
        state = Mutex(State(ringCapacity: ringCapacity, ringBytes: ringBytes))
        self.graceMilliseconds = graceMilliseconds
        self.bufferLimit = bufferLimit
        self.heartbeatMilliseconds = heartbeatMilliseconds
        store.sink.subscribe { [weak self] changes in self?.committed(changes) }
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
                var backlog: [PublishedEvent] = []
                if let after {
                    if after >= state.nextID {
                        // A cursor from another run of the server (ids start again at each start).
                        let gap =
                            #"{"error":"event \#(after) is not from this run of the server; reload from the admin API","resumeFrom":\#(state.nextID)}"#
                        backlog.append(PublishedEvent(id: state.nextID - 1, type: .gap, data: gap, facts: [:]))
                    } else if after + 1 < state.firstKept {
                        let gap =
                            #"{"error":"events after \#(after) are no longer kept; reload from the admin API","resumeFrom":\#(state.firstKept)}"#
                        backlog.append(PublishedEvent(id: state.firstKept - 1, type: .gap, data: gap, facts: [:]))
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

    /// The id of the newest event, once what is committed is published: a stream opened with it as its
    /// cursor gets every event after it. The hub keeps events from now on (as if a stream had just
    /// closed), so one opened within the grace time misses none.
    package func mark() -> UInt64 {
        queue.sync {
            activate()
            flush()
            return state.withLock { state in
                if state.subscribers.isEmpty { state.lastSubscriberLeftAt = Clock.monotonicNanoseconds() }
                return state.nextID - 1
            }
        }
    }

    private func unsubscribe(_ id: UInt64) {
        state.withLock { state in
            state.subscribers[id] = nil
            if state.subscribers.isEmpty { state.lastSubscriberLeftAt = Clock.monotonicNanoseconds() }
        }
    }

    /// Starts, if it was idle: committed rows are kept from now on, the ring starts afresh. On the queue.
    private func activate() {
        guard !active.load(ordering: .acquiring) else { return }
        state.withLock { state in
            state.ring.removeAll()
            state.firstKept = state.nextID
            active.store(true, ordering: .releasing)
            store.sink.wantsDeviceRows = true
        }
    }

    /// Stops when no stream is open and none closed within the grace time. On the queue.
    private func deactivateIfIdle() {
        let idle = state.withLock { state in
            state.subscribers.isEmpty
                && Clock.monotonicNanoseconds() - state.lastSubscriberLeftAt > UInt64(graceMilliseconds) * 1_000_000
        }
        guard idle, active.load(ordering: .acquiring) else { return }
        // What is pending is for nobody; under the lock, so that no batch is kept after it.
        state.withLock { state in
            active.store(false, ordering: .releasing)
            store.sink.wantsDeviceRows = false
            state.pending.removeAll()
        }
    }

    // MARK: - Publishing

    /// A batch of rows committed (on the writer thread): they are published soon, on the hub's queue.
    /// Publishing waits `batchMilliseconds`, so a busy server's changes go out in batches (one write per
    /// stream) rather than one by one.
    private func committed(_ changes: [CommittedChange]) {
        guard active.load(ordering: .relaxed) else { return }
        let schedule = state.withLock { state in
            guard active.load(ordering: .relaxed) else { return false }
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

    /// The events for `changes`, made from what was written: nothing is read back. The type and the
    /// facts are the change's own (the same the waiters compare); the data is the item as the admin API
    /// shows it.
    private func published(_ changes: [CommittedChange]) -> [Published] {
        let view = deviceView.withLock { $0.apply }
        return changes.map { change in
            let data: [UInt8] =
                switch change {
                case .request(let id, let record): record.summaryJSON(id: id)
                case .hit(let id, let hit): TrackingEvent(id: id, hit: hit).json
                case .registration(let notice): Array(JSONText.compact(notice).utf8)
                case .device(let device): Array(JSONText.compact(view(device)).utf8)
                case .push(let push): Array(JSONText.compact(push).utf8)
                case .send(let send): Array(JSONText.compact(send).utf8)
                }
            return Published(type: change.type, data: data, facts: Facts(change))
        }
    }

    private func emit(_ items: [Published]) {
        guard !items.isEmpty else { return }
        let deliveries: [(ResponseStream, [UInt8])] = state.withLock { state in
            var published: [PublishedEvent] = []
            published.reserveCapacity(items.count)
            for item in items {
                let event = PublishedEvent(id: state.nextID, type: item.type, data: item.data, facts: item.facts)
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
            ": heartbeat \(RFC3339.string(microsecondsSince1970: Clock.wallClockMicroseconds()))\n\n".utf8)
        for stream in streams { stream.write(comment) }
        deactivateIfIdle()
    }
}
