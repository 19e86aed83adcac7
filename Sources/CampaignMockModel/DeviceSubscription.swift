/// A registered device as the admin API shows it: one row of `nms:appSubscriptionRcp`, keyed by
/// application and registration token, with its additional params and registration history.
package struct DeviceSubscription: Sendable, Codable, Equatable {
    package struct ApplicationReference: Sendable, Codable, Equatable {
        package var integrationKey: String
        package var name: String
        package var platform: Platform

        package init(
            integrationKey: String, name: String, platform: Platform
        ) {
            self.integrationKey = integrationKey
            self.name = name
            self.platform = platform
        }
    }

    /// One accepted registration of the device, as it was at that moment.
    package struct HistoryEntry: Sendable, Codable, Equatable {
        package var id: Int64
        package var receivedAt: String
        /// What this registration changed: `new`, `userKey`, `device`, `params`, or `unchanged`.
        package var changes: [String]
        package var userKey: String
        package var device: DeviceFields
        package var params: [AdditionalParam]

        package init(
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

    package var registrationToken: String
    package var application: ApplicationReference
    package var userKey: String
    package var device: DeviceFields
    package var params: [AdditionalParam]
    package var disabled: Bool
    package var createdAt: String
    package var updatedAt: String
    /// How many registrations were accepted for this device.
    package var registrationCount: Int
    /// Oldest first; present on single-device answers.
    package var history: [HistoryEntry]?
    /// The pushes sent to the device and what became of them; present on single-device answers.
    package var messages: [MessageLifecycle]?

    /// One issued message: sent, then received and opened as the device's tracking hits say.
    package struct MessageLifecycle: Sendable, Codable, Equatable {
        package var messageId: String
        package var deliveryId: String
        package var pushId: Int64?
        package var sentAt: String
        package var receivedAt: String?
        package var openedAt: String?

        package init(
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

    package init(
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
package struct RegistrationNotice: Sendable, Codable, Equatable {
    package var id: Int64
    package var receivedAt: String
    package var registrationToken: String
    package var integrationKey: String
    package var platform: Platform
    package var userKey: String
    package var changes: [String]
    /// The device fields and params this registration sent, so that a waiting test or the console has
    /// the whole registration without another request.
    package var device: DeviceFields
    package var params: [AdditionalParam]

    package init(
        id: Int64, receivedAt: String, registrationToken: String, integrationKey: String, platform: Platform,
        userKey: String, changes: [String], device: DeviceFields, params: [AdditionalParam]
    ) {
        self.id = id
        self.receivedAt = receivedAt
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
package struct DevicePage: Sendable, Codable, Equatable {
    package var devices: [DeviceSubscription]
    /// Devices matching the filter in all (not only on this page).
    package var total: Int
    /// Pass as `before` (newest-first pages) or `after` (oldest-first pages) for the next page; nil when
    /// this page is the last.
    package var nextCursor: Int64?

    package init(
        devices: [DeviceSubscription], total: Int, nextCursor: Int64? = nil
    ) {
        self.devices = devices
        self.total = total
        self.nextCursor = nextCursor
    }
}
