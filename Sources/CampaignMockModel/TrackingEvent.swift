/// A stored tracking hit, as the admin API shows it.
public struct TrackingEvent: Sendable, Codable, Equatable {
    /// What a hit reports (docs/protocol.md §4.1): the one name of receive and open, for the hit's id and
    /// the database (``tag``), the admin API's filters, `/_mock/wait`, the event stream, the metrics and
    /// the clients (``rawValue``).
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// Tag `1`: the notification was received.
        case receive
        /// Tag `2`: the notification was opened (clicked, or dismissed on newer Android extensions).
        case open

        /// The digit the hit's id ends with, as stored.
        public var tag: Int { self == .receive ? 1 : 2 }

        /// The kind of the tag `1` or `2`.
        public init?(tag: Int) {
            switch tag {
            case 1: self = .receive
            case 2: self = .open
            default: return nil
            }
        }
    }

    /// The message and device a hit belongs to, when the mock issued its message id.
    public struct Link: Sendable, Codable, Equatable {
        /// `_mId` as issued.
        public var messageId: String
        public var deliveryId: String
        public var registrationToken: String?
        public var integrationKey: String?

        public init(
            messageId: String, deliveryId: String, registrationToken: String? = nil, integrationKey: String? = nil
        ) {
            self.messageId = messageId
            self.deliveryId = deliveryId
            self.registrationToken = registrationToken
            self.integrationKey = integrationKey
        }
    }

    public var id: Int64
    public var receivedAt: String
    /// ``Kind/tag``.
    public var tag: Int
    /// ``Kind/rawValue``: `receive` or `open`.
    public var type: String
    /// The `id` parameter as received.
    public var rawId: String
    /// For numeric ids: the hex as sent and its unsigned value in decimal.
    public var messageHex: String?
    public var messageValue: String?
    /// For v8 ids.
    public var messageUuid: String?
    public var deliveryId: String
    public var userAgent: String?
    public var remoteAddress: String?
    public var linked: Link?

    public init(
        id: Int64, receivedAt: String, tag: Int, type: String, rawId: String, messageHex: String? = nil,
        messageValue: String? = nil, messageUuid: String? = nil, deliveryId: String, userAgent: String? = nil,
        remoteAddress: String? = nil, linked: Link? = nil
    ) {
        self.id = id
        self.receivedAt = receivedAt
        self.tag = tag
        self.type = type
        self.rawId = rawId
        self.messageHex = messageHex
        self.messageValue = messageValue
        self.messageUuid = messageUuid
        self.deliveryId = deliveryId
        self.userAgent = userAgent
        self.remoteAddress = remoteAddress
        self.linked = linked
    }
}

/// A page of events, oldest first.
public struct EventPage: Sendable, Codable, Equatable {
    public var events: [TrackingEvent]
    /// Events matching the filter in all (not only on this page); left out where a reader did not ask.
    public var total: Int?
    /// Pass as `before` (newest-first pages) or `after` (oldest-first pages) for the next page.
    public var nextCursor: Int64?

    public init(
        events: [TrackingEvent], total: Int? = nil, nextCursor: Int64? = nil
    ) {
        self.events = events
        self.total = total
        self.nextCursor = nextCursor
    }
}
