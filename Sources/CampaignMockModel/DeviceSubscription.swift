/// A registered device as the admin API shows it: one row of `nms:appSubscriptionRcp`, keyed by
/// application and registration token, with its additional params and registration history.
public struct DeviceSubscription: Sendable, Codable, Equatable {
    public struct ApplicationReference: Sendable, Codable, Equatable {
        public var integrationKey: String
        public var name: String
        public var platform: Platform

        public init(
            integrationKey: String, name: String, platform: Platform
        ) {
            self.integrationKey = integrationKey
            self.name = name
            self.platform = platform
        }
    }

    /// One accepted registration of the device, as it was at that moment.
    public struct HistoryEntry: Sendable, Codable, Equatable {
        public var id: Int64
        public var receivedAt: String
        /// What this registration changed: `new`, `userKey`, `device`, `params`, or `unchanged`.
        public var changes: [String]
        public var userKey: String
        public var device: DeviceFields
        public var params: [AdditionalParam]

        public init(
            id: Int64, receivedAt: String, changes: [String], userKey: String, device: DeviceFields,
            params: [AdditionalParam]
        ) {
            self.id = id
            self.receivedAt = receivedAt
            self.changes = changes
            self.userKey = userKey
            self.device = device
            self.params = params
        }
    }

    public var registrationToken: String
    public var application: ApplicationReference
    public var userKey: String
    public var device: DeviceFields
    public var params: [AdditionalParam]
    public var disabled: Bool
    public var createdAt: String
    public var updatedAt: String
    /// How many registrations were accepted for this device.
    public var registrationCount: Int
    /// Oldest first; present on single-device answers.
    public var history: [HistoryEntry]?
    /// The pushes sent to the device and what became of them; present on single-device answers.
    public var messages: [MessageLifecycle]?
    /// Whether the developer trusted the token for real sends on this machine (`POST
    /// /_mock/devices/{token}/trust`, the console's *Trust*): explicit trust only, until the server stops.
    /// Always present in the server's answers; nil from a server older than the field.
    public var trusted: Bool?
    /// The send allow-list's pattern that matches the device (a `token:` one first), when one does: a
    /// `token:` pattern lets it through alone, any other only once it is ``trusted``.
    public var sendAllowMatch: String?

    /// One issued message: sent, then received and opened as the device's tracking hits say.
    public struct MessageLifecycle: Sendable, Codable, Equatable {
        public var messageId: String
        public var deliveryId: String
        public var pushId: Int64?
        public var sentAt: String
        public var receivedAt: String?
        public var openedAt: String?

        public init(
            messageId: String, deliveryId: String, pushId: Int64? = nil, sentAt: String, receivedAt: String? = nil,
            openedAt: String? = nil
        ) {
            self.messageId = messageId
            self.deliveryId = deliveryId
            self.pushId = pushId
            self.sentAt = sentAt
            self.receivedAt = receivedAt
            self.openedAt = openedAt
        }
    }

    public init(
        registrationToken: String, application: ApplicationReference, userKey: String, device: DeviceFields,
        params: [AdditionalParam], disabled: Bool, createdAt: String, updatedAt: String, registrationCount: Int,
        history: [HistoryEntry]? = nil, messages: [MessageLifecycle]? = nil
    ) {
        self.registrationToken = registrationToken
        self.application = application
        self.userKey = userKey
        self.device = device
        self.params = params
        self.disabled = disabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.registrationCount = registrationCount
        self.history = history
        self.messages = messages
    }
}

/// One accepted registration, as a wait for registrations reports it.
public struct RegistrationNotice: Sendable, Codable, Equatable {
    public var id: Int64
    public var receivedAt: String
    public var registrationToken: String
    public var integrationKey: String
    public var platform: Platform
    public var userKey: String
    public var changes: [String]
    /// The device fields and params this registration sent, so that a waiting test or the console has
    /// the whole registration without another request.
    public var device: DeviceFields
    public var params: [AdditionalParam]
    /// `receivedAt` in microseconds since 1970, for the server's own readers of a notice it made (the
    /// integration checks), which then need not parse the text back. Not part of the JSON: nil in a
    /// notice decoded from it.
    public var receivedAtMicroseconds: Int64?
    /// `changes` as a type, for the same readers; not part of the JSON either.
    package var changed: RegistrationChanges?

    private enum CodingKeys: String, CodingKey {
        case id, receivedAt, registrationToken, integrationKey, platform, userKey, changes, device, params
    }

    public init(
        id: Int64, receivedAt: String, registrationToken: String, integrationKey: String, platform: Platform,
        userKey: String, changes: [String], device: DeviceFields, params: [AdditionalParam],
        receivedAtMicroseconds: Int64? = nil
    ) {
        self.id = id
        self.receivedAt = receivedAt
        self.receivedAtMicroseconds = receivedAtMicroseconds
        self.registrationToken = registrationToken
        self.integrationKey = integrationKey
        self.platform = platform
        self.userKey = userKey
        self.changes = changes
        self.device = device
        self.params = params
    }
}

/// A page of devices.
public struct DevicePage: Sendable, Codable, Equatable {
    public var devices: [DeviceSubscription]
    /// Devices matching the filter in all (not only on this page).
    public var total: Int
    /// Pass as `before` (newest-first pages) or `after` (oldest-first pages) for the next page; nil when
    /// this page is the last.
    public var nextCursor: Int64?
    /// Present when the list is filtered by an integration key no application has: `no application has
    /// the key 'K' (keys: …)`, as a wait that times out says it.
    public var warning: String?

    public init(
        devices: [DeviceSubscription], total: Int, nextCursor: Int64? = nil, warning: String? = nil
    ) {
        self.devices = devices
        self.total = total
        self.nextCursor = nextCursor
        self.warning = warning
    }
}

extension DeviceSubscription {
    /// The param called `name`, if any.
    public func param(_ name: String) -> AdditionalParam? { params.first { $0.name == name } }
}

/// What removing one device took away and what it left, unlinked (`DELETE /_mock/devices/{token}`).
public struct DeviceRemoval: Sendable, Codable, Equatable {
    public var registrationToken: String
    public var app: String
    /// The device's registrations (its history), removed with it.
    public var registrations: Int
    /// Its tracking events and issued messages: kept, linked to no device.
    public var eventsUnlinked: Int
    public var messagesUnlinked: Int
    /// The composed pushes that had a message to it: kept as they were composed.
    public var pushesKept: Int

    public init(
        registrationToken: String, app: String, registrations: Int, eventsUnlinked: Int, messagesUnlinked: Int,
        pushesKept: Int
    ) {
        self.registrationToken = registrationToken
        self.app = app
        self.registrations = registrations
        self.eventsUnlinked = eventsUnlinked
        self.messagesUnlinked = messagesUnlinked
        self.pushesKept = pushesKept
    }
}

/// What `DELETE /_mock/devices/{token}` answers: what went with the device.
public struct DeviceDeletion: Sendable, Codable, Equatable {
    public var deleted: DeviceRemoval
    /// Whether its token was trusted for sending and is no longer (trust is by token: it stays while another
    /// application has the token).
    public var trustRemoved: Bool
    /// The integration checks' findings about the device that cleared.
    public var findingsCleared: Int

    public init(deleted: DeviceRemoval, trustRemoved: Bool, findingsCleared: Int) {
        self.deleted = deleted
        self.trustRemoved = trustRemoved
        self.findingsCleared = findingsCleared
    }
}

/// What `GET`, `POST` and `DELETE /_mock/devices/{token}/trust` answer.
public struct DeviceTrust: Sendable, Codable, Equatable {
    public var registrationToken: String
    public var trusted: Bool

    public init(registrationToken: String, trusted: Bool) {
        self.registrationToken = registrationToken
        self.trusted = trusted
    }
}
