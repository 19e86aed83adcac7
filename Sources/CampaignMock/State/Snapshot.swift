/// The whole state as JSON (`GET /_mock/state`, `PUT /_mock/state`): applications, devices with their
/// params and history, issued messages, tracking events and fault rules. Not the request journal.
///
/// Rows are listed in the order they were stored and carry no internal ids, so exporting, importing
/// and exporting again gives the same document. Times are ISO 8601 with milliseconds.
package struct Snapshot: Sendable, Codable, Equatable {
    package struct Device: Sendable, Codable, Equatable {
        package var integrationKey: String
        package var registrationToken: String
        package var userKey: String
        package var device: DeviceFields
        package var params: [AdditionalParam]
        package var disabled: Bool
        package var createdAt: String
        package var updatedAt: String
        package var history: [Registration]
    }

    package struct Registration: Sendable, Codable, Equatable {
        package var receivedAt: String
        package var changes: [String]
        package var userKey: String
        package var device: DeviceFields
        package var params: [AdditionalParam]
    }

    package struct Message: Sendable, Codable, Equatable {
        /// `_mId` as issued: a decimal or a UUID.
        package var messageId: String
        package var deliveryId: String
        package var integrationKey: String?
        package var registrationToken: String?
        package var createdAt: String
    }

    package struct Event: Sendable, Codable, Equatable {
        package var receivedAt: String
        /// The tracking `id` as received; the decoded fields are derived from it.
        package var rawId: String
        package var userAgent: String?
        package var remoteAddress: String?
        /// The issued message the hit was linked to.
        package var messageId: String?
    }

    /// The document's version; a newer one is refused on import.
    package static let currentVersion = 1

    package var format = "campaign-mock-state"
    package var version = Snapshot.currentVersion
    package var applications: [Application]
    package var devices: [Device]
    package var messages: [Message]
    package var events: [Event]
    package var faults: [FaultRule]
}
