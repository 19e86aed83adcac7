/// The events of `GET /_mock/stream`, by the name the stream writes after `event:`. The one list of them:
/// the server publishes these, `campaign-mock tail` filters by them, and a test holds the console and the
/// OpenAPI description to the same list.
public enum StreamEventType: String, Sendable, Codable, CaseIterable {
    /// A registration the SDK sent (``RegistrationNotice``).
    case registration
    /// The device a registration made or changed, as `GET /_mock/devices` lists it (``DeviceSubscription``,
    /// without history): right after its `registration`.
    case device
    /// Tracking hits (``TrackingEvent``): a notification was received, or opened.
    case receive, open
    /// A journaled request (``RequestSummary``).
    case request
    /// A composed push (``ComposedPush``).
    case push
    /// A composed message sent through APNs or FCM, with the provider's answer (``PushSend``).
    case send
    /// A fault rule fired (the ``FaultRule``).
    case fault
    /// An application was added, changed or deleted.
    case app
    /// A finding of the integration checks appeared, changed or cleared (``CheckChange``).
    case check
    /// The state was reset or imported: reload from the admin API.
    case reset
    /// The stream cannot resume where the client asked: reload from the admin API.
    case gap
    /// The client read too slowly; the stream ends after it.
    case overflow
    /// The server is stopping; the stream ends after it.
    case shutdown

    /// Whether a stream can be asked for it (`?type=`): the stream's own notices always come.
    public var isSelectable: Bool { ![.gap, .overflow, .shutdown].contains(self) }

    /// The event of a tracking hit.
    public init(_ kind: TrackingEvent.Kind) {
        self = kind == .receive ? .receive : .open
    }

    /// The kind of tracking hit the event is, if it is one.
    public var trackingKind: TrackingEvent.Kind? { TrackingEvent.Kind(rawValue: rawValue) }
}
