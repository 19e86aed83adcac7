package import CampaignMockJournal
package import CampaignMockModel
import Synchronization

/// A row the writer wrote, as it wrote it: what the waiters, the event stream and any other
/// subscriber of the store's ``ChangeSink`` learn of a change.
///
/// The writer notes each such row as it writes it, and hands the notes of a batch to the sink right
/// after the batch commits and before any of its jobs' completions, in the order they were written
/// (the change a request made before the request's journal entry). What a rolled-back job wrote is
/// never handed on. Each kind carries what was written, so a subscriber reads nothing back. The cases are
/// `indirect`: a change is one reference, so the batch's array and each subscriber's pass over it copy a
/// pointer, not the journal record's dozen strings and byte arrays.
package indirect enum CommittedChange: Sendable {
    /// A journal entry: its id and the record written.
    case request(id: Int64, JournalRecord)
    /// A tracking hit, with what it shows of the message it is linked to.
    case hit(id: Int64, HitRecord)
    /// A registration as written.
    case registration(RegistrationNotice)
    /// The device it made or changed, as the device lists show it.
    case device(DeviceSubscription)
    /// A push as composed and stored.
    case push(ComposedPush)
    /// A message of a push sent through a provider, with its answer.
    case send(PushSend)
}

/// What a tracking hit stores, before any link.
package struct HitRecord: Sendable {
    package var trackingID: TrackingID
    package var userAgent: String?
    package var remoteAddress: String?
    /// Microseconds since 1970.
    package var receivedAt: Int64
    /// The issued message it is linked to, as the hit shows it.
    package var link: TrackingEvent.Link?
}

/// Where the writer hands each committed batch's changes: one fan-out to every subscriber.
///
/// Subscribers are called on the writer thread, in commit order, before the batch's completions, so a
/// client that got its answer finds its change already handed on (read-your-writes). Keep a subscriber
/// short: note what it needs and hand the work to a queue of its own, as the waiters and the event stream
/// do; every write of the server waits for it.
package final class ChangeSink: Sendable {
    /// A subscriber in a struct: a `Mutex` holding bare closures re-wrapped them in one more thunk on every
    /// access (each call then went through all of them).
    private struct Subscriber {
        let id: UInt64
        let receive: @Sendable ([CommittedChange]) -> Void
    }

    private let subscribers = Mutex<(next: UInt64, all: [Subscriber])>((1, []))
    private let deviceRows = Atomic<Bool>(false)

    package init() {}

    /// Whether a subscriber reads the devices' rows (``CommittedChange/device(_:)``) beside the
    /// registrations that changed them: the event stream sets it while it has listeners. Off, a
    /// registration hands on its ``CommittedChange/registration(_:)`` alone, and the writer builds no row
    /// (two times in words, a copy of the application, and a count of the history on a re-registration)
    /// that nobody reads. The writer reads it as a batch begins: a batch under way when it changes is
    /// handed on as it began.
    package var wantsDeviceRows: Bool {
        get { deviceRows.load(ordering: .relaxed) }
        set { deviceRows.store(newValue, ordering: .relaxed) }
    }

    /// Calls `receive` with the changes of every batch committed from now on (never an empty batch),
    /// on the writer thread: keep it short. Returns an id for ``unsubscribe(_:)``.
    @discardableResult
    package func subscribe(_ receive: @escaping @Sendable (_ changes: [CommittedChange]) -> Void) -> UInt64 {
        subscribers.withLock { state in
            defer { state.next += 1 }
            state.all.append(Subscriber(id: state.next, receive: receive))
            return state.next
        }
    }

    /// Stops calling the subscriber `id`; a batch being handed on may still reach it.
    package func unsubscribe(_ id: UInt64) {
        subscribers.withLock { $0.all.removeAll { $0.id == id } }
    }

    /// Hands a committed batch's changes to every subscriber, in the order they subscribed.
    func hand(_ changes: [CommittedChange]) {
        for subscriber in subscribers.withLock({ $0.all }) { subscriber.receive(changes) }
    }
}

extension StoreTransaction {
    /// Notes a written row for the sink (see ``CommittedChange``), unless inside ``withoutRecording(_:)``.
    func record(_ change: @autoclosure () -> CommittedChange) {
        guard connection.recording else { return }
        // The writer hands each batch's array on and starts a new one: room for a request's few changes
        // at once, instead of growing it at each (two reallocations of a registration's three).
        if connection.recordedChanges.capacity == 0 { connection.recordedChanges.reserveCapacity(4) }
        connection.recordedChanges.append(change())
    }

    /// Runs `body` without noting what it writes (a state import: the stream announces a reset instead,
    /// the waiters look again), so an import of millions of rows notes nothing in memory either.
    package func withoutRecording<T>(_ body: () throws -> T) rethrows -> T {
        let recording = connection.recording
        connection.recording = false
        defer { connection.recording = recording }
        return try body()
    }
}

extension CommittedChange {
    /// The event the change is, as the stream names it and the waiters count it.
    package var type: StreamEventType {
        switch self {
        case .request: .request
        case .hit(_, let hit): StreamEventType(hit.trackingID.tag)
        case .registration: .registration
        case .device: .device
        case .push: .push
        case .send: .send
        }
    }

    /// What the change says of `fact`, from what was written; nil when it says nothing of it.
    package func value(of fact: ChangeFact) -> String? {
        switch self {
        case .request(_, let record):
            switch fact {
            case .endpoint: record.endpoint
            case .status: String(record.status)
            case .app: record.appKey
            default: nil
            }
        case .hit(_, let hit):
            switch fact {
            case .deliveryId: hit.trackingID.deliveryID
            case .token: hit.link?.registrationToken
            case .app: hit.link?.integrationKey
            case .messageValue:
                if case .numeric(_, let value) = hit.trackingID.message {
                    String(Int64(bitPattern: value))
                } else {
                    nil
                }
            case .messageUuid:
                if case .uuid(let uuid) = hit.trackingID.message { uuid } else { nil }
            default: nil
            }
        case .registration(let registration):
            switch fact {
            case .app: registration.integrationKey
            case .token: registration.registrationToken
            case .platform: registration.platform.rawValue
            case .userKey: registration.userKey
            case .param(let name): registration.params.first { $0.name == name }?.value
            default: nil
            }
        case .device(let device):
            switch fact {
            case .app: device.application.integrationKey
            case .token: device.registrationToken
            case .platform: device.application.platform.rawValue
            case .userKey: device.userKey
            case .param(let name): device.params.first { $0.name == name }?.value
            default: nil
            }
        case .push(let push):
            switch fact {
            case .app: push.messages.first?.app
            case .token: push.messages.first?.registrationToken
            default: nil
            }
        case .send(let send):
            switch fact {
            case .app: send.app
            case .token: send.registrationToken
            default: nil
            }
        }
    }

    /// Whether the change is a `type` whose facts fit `allowed` (per fact, the values accepted). A fact the
    /// change says nothing of may fit: a waiter then looks once more than needed, never once less.
    package func mayMatch(_ type: StreamEventType, allowed: [ChangeFact: Set<String>]) -> Bool {
        guard self.type == type else { return false }
        return allowed.allSatisfy { fact, accepted in value(of: fact).map(accepted.contains) ?? true }
    }
}
