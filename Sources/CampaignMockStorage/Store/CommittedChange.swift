package import CampaignMockModel

/// A row the event stream publishes, as the writer wrote it.
///
/// While recording is on (an event stream is open), the writer notes each such row as it writes it,
/// and hands the notes of a batch on right after the batch commits, in the order they were written
/// (the change a request made before the request's journal entry). What a rolled-back job wrote is
/// never handed on. Each kind carries what was written, so publishing it reads nothing.
package enum CommittedChange: Sendable {
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

extension StoreTransaction {
    /// Whether written rows are noted for the event stream (a stream is open): what only the stream
    /// shows is worked out only then.
    var isRecording: Bool { connection.recordedChanges != nil }

    /// Notes a written row for the event stream, when recording is on (see ``CommittedChange``).
    func record(_ change: @autoclosure () -> CommittedChange) {
        if connection.recordedChanges != nil { connection.recordedChanges!.append(change()) }
    }

    /// Whether rows written from now on are handed to the event stream after their commit.
    package func recordChanges(_ on: Bool) {
        if on {
            if connection.recordedChanges == nil { connection.recordedChanges = [] }
        } else {
            connection.recordedChanges = nil
        }
    }

    /// Runs `body` without noting what it writes (a state import: the stream announces a reset instead).
    /// Recording is off meanwhile, so an import of millions of rows notes nothing in memory either.
    package func withoutRecording<T>(_ body: () throws -> T) rethrows -> T {
        let recorded = connection.recordedChanges
        connection.recordedChanges = nil
        defer { connection.recordedChanges = recorded }
        return try body()
    }
}
