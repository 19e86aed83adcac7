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

    /// One accepted registration of a device: when it came, what it changed of the device, and what it sent.
    /// The one value of a registration: the device's ``history`` lists them, a wait for
    /// registrations and the event stream give each with its device's key (``RegistrationNotice``), and the
    /// snapshot keeps them without their ids (``Snapshot/History``).
    public struct Registration: Sendable, Equatable {
        /// Registrations are numbered in the order they were accepted. 0 in one read from a snapshot, which
        /// keeps no ids.
        public var id: Int64
        public var receivedAt: String
        /// What it changed of the device; ``changes`` says it in words.
        package var changed: RegistrationChanges
        public var userKey: String
        public var device: DeviceFields
        public var params: [AdditionalParam]
        /// `receivedAt` in microseconds since 1970, for the server's own readers of a registration it made
        /// (the integration checks), which then need not parse the text back. Not part of the JSON: nil in
        /// one decoded from it.
        public var receivedAtMicroseconds: Int64?

        /// What it changed, as the JSON says it: `new`, `userKey`, `device`, `params`, or `unchanged`.
        public var changes: [String] {
            get { changed.names }
            set { changed = RegistrationChanges(names: newValue) }
        }

        package init(
            id: Int64, receivedAt: String, changed: RegistrationChanges, userKey: String, device: DeviceFields,
            params: [AdditionalParam], receivedAtMicroseconds: Int64? = nil
        ) {
            self.id = id
            self.receivedAt = receivedAt
            self.changed = changed
            self.userKey = userKey
            self.device = device
            self.params = params
            self.receivedAtMicroseconds = receivedAtMicroseconds
        }

        public init(
            id: Int64, receivedAt: String, changes: [String], userKey: String, device: DeviceFields,
            params: [AdditionalParam]
        ) {
            self.init(
                id: id, receivedAt: receivedAt, changed: RegistrationChanges(names: changes), userKey: userKey,
                device: device, params: params)
        }
    }

    @available(*, deprecated, renamed: "Registration")
    public typealias HistoryEntry = Registration

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
    /// Its registrations, oldest first; present on single-device answers.
    public var history: [Registration]?
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
        history: [Registration]? = nil, messages: [MessageLifecycle]? = nil
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

extension DeviceSubscription.Registration: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, receivedAt, changes, userKey, device, params
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id) ?? 0
        receivedAt = try container.decode(String.self, forKey: .receivedAt)
        changed = RegistrationChanges(names: try container.decode([String].self, forKey: .changes))
        userKey = try container.decode(String.self, forKey: .userKey)
        device = try container.decode(DeviceFields.self, forKey: .device)
        params = try container.decode([AdditionalParam].self, forKey: .params)
    }

    public func encode(to encoder: any Encoder) throws { try encode(to: encoder, withID: true) }

    /// The JSON object, with its `id` or without it (the snapshot's).
    package func encode(to encoder: any Encoder, withID: Bool) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if withID { try container.encode(id, forKey: .id) }
        try container.encode(receivedAt, forKey: .receivedAt)
        try container.encode(changes, forKey: .changes)
        try container.encode(userKey, forKey: .userKey)
        try container.encode(device, forKey: .device)
        try container.encode(params, forKey: .params)
    }
}

/// One accepted registration with the key of its device, as a wait for registrations and the event stream
/// give it: the registration's fields and the device's, in one JSON object. The registration's fields
/// read as the notice's own (`notice.userKey`).
@dynamicMemberLookup
public struct RegistrationNotice: Sendable, Equatable {
    public var registrationToken: String
    public var integrationKey: String
    public var platform: Platform
    public var registration: DeviceSubscription.Registration

    public subscript<Value>(dynamicMember field: WritableKeyPath<DeviceSubscription.Registration, Value>) -> Value {
        get { registration[keyPath: field] }
        set { registration[keyPath: field] = newValue }
    }

    package init(
        registrationToken: String, integrationKey: String, platform: Platform,
        registration: DeviceSubscription.Registration
    ) {
        self.registrationToken = registrationToken
        self.integrationKey = integrationKey
        self.platform = platform
        self.registration = registration
    }

    public init(
        id: Int64, receivedAt: String, registrationToken: String, integrationKey: String, platform: Platform,
        userKey: String, changes: [String], device: DeviceFields, params: [AdditionalParam],
        receivedAtMicroseconds: Int64? = nil
    ) {
        self.init(
            registrationToken: registrationToken, integrationKey: integrationKey, platform: platform,
            registration: DeviceSubscription.Registration(
                id: id, receivedAt: receivedAt, changed: RegistrationChanges(names: changes), userKey: userKey,
                device: device, params: params, receivedAtMicroseconds: receivedAtMicroseconds))
    }
}

extension RegistrationNotice: Codable {
    private enum CodingKeys: String, CodingKey {
        case registrationToken, integrationKey, platform
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        registrationToken = try container.decode(String.self, forKey: .registrationToken)
        integrationKey = try container.decode(String.self, forKey: .integrationKey)
        platform = try container.decode(Platform.self, forKey: .platform)
        registration = try DeviceSubscription.Registration(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try registration.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(registrationToken, forKey: .registrationToken)
        try container.encode(integrationKey, forKey: .integrationKey)
        try container.encode(platform, forKey: .platform)
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
