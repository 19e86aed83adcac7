/// A registered device as the admin API shows it: one row of `nms:appSubscriptionRcp`, keyed by
/// application and registration token, with its additional params and registration history.
package struct DeviceSubscription: Sendable, Codable, Equatable {
    package struct ApplicationReference: Sendable, Codable, Equatable {
        package var integrationKey: String
        package var name: String
        package var platform: Platform
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
}

/// Which devices a listing returns.
package struct DeviceFilter: Sendable, Equatable {
    package var applicationKey: String?
    package var platform: Platform?
    package var userKey: String?
    package var registrationToken: String?
    /// `param.<name>=<value>`: the param's text must equal the value.
    package var params: [(name: String, value: String)] = []
    /// `q`: text found (ignoring ASCII case) in the token, userKey, device fields, params or application.
    package var search: String?

    package init() {}

    package static func == (lhs: DeviceFilter, rhs: DeviceFilter) -> Bool {
        lhs.applicationKey == rhs.applicationKey && lhs.platform == rhs.platform && lhs.userKey == rhs.userKey
            && lhs.registrationToken == rhs.registrationToken && lhs.params.map(\.name) == rhs.params.map(\.name)
            && lhs.params.map(\.value) == rhs.params.map(\.value) && lhs.search == rhs.search
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
}
