/// The whole state as JSON (`GET /_mock/state`, `PUT /_mock/state`): applications, devices with their
/// params and history, issued messages, tracking events and fault rules. Not the request journal.
///
/// Rows are listed in the order they were stored and carry no internal ids, so exporting, importing
/// and exporting again gives the same document. Times are ISO 8601 with milliseconds.
///
/// The document is never held whole: the export writes it a row at a time (`writeSnapshot`), the import
/// reads it a row at a time (`SnapshotImport`). These are its rows; its keys are `format`
/// (`campaign-mock-state`), `version`, `applications`, `devices`, `messages`, `events` and `faults`.
package enum Snapshot {
    /// A device as the document keeps it: its application by integration key (the document's `applications`
    /// hold the rest), its whole history, and nothing the server works out, which the admin API's
    /// ``DeviceSubscription`` adds (how many registrations, the messages, the trust for sending).
    package struct Device: Sendable, Codable, Equatable {
        package var integrationKey: String
        package var registrationToken: String
        package var userKey: String
        package var device: DeviceFields
        package var params: [AdditionalParam]
        package var disabled: Bool
        package var createdAt: String
        package var updatedAt: String
        package var history: History

        package init(
            integrationKey: String, registrationToken: String, userKey: String, device: DeviceFields,
            params: [AdditionalParam], disabled: Bool, createdAt: String, updatedAt: String, history: History
        ) {
            self.integrationKey = integrationKey
            self.registrationToken = registrationToken
            self.userKey = userKey
            self.device = device
            self.params = params
            self.disabled = disabled
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.history = history
        }
    }

    /// A device's registrations as the document keeps them, oldest first: without their ids.
    package struct History: Sendable, Codable, Equatable {
        package var registrations: [DeviceSubscription.Registration]

        package init(_ registrations: [DeviceSubscription.Registration]) { self.registrations = registrations }

        package init(from decoder: any Decoder) throws {
            registrations = try [DeviceSubscription.Registration](from: decoder)
        }

        package func encode(to encoder: any Encoder) throws {
            var entries = encoder.unkeyedContainer()
            for registration in registrations { try registration.encode(to: entries.superEncoder(), withID: false) }
        }
    }

    package struct Message: Sendable, Codable, Equatable {
        /// `_mId` as issued: a decimal or a UUID.
        package var messageId: String
        package var deliveryId: String
        package var integrationKey: String?
        package var registrationToken: String?
        package var createdAt: String

        package init(
            messageId: String, deliveryId: String, integrationKey: String? = nil, registrationToken: String? = nil,
            createdAt: String
        ) {
            self.messageId = messageId
            self.deliveryId = deliveryId
            self.integrationKey = integrationKey
            self.registrationToken = registrationToken
            self.createdAt = createdAt
        }
    }

    package struct TrackingHit: Sendable, Codable, Equatable {
        package var receivedAt: String
        /// The tracking `id` as received; the decoded fields are derived from it.
        package var rawId: String
        package var userAgent: String?
        package var remoteAddress: String?
        /// The issued message the hit was linked to.
        package var messageId: String?

        package init(
            receivedAt: String, rawId: String, userAgent: String? = nil, remoteAddress: String? = nil,
            messageId: String? = nil
        ) {
            self.receivedAt = receivedAt
            self.rawId = rawId
            self.userAgent = userAgent
            self.remoteAddress = remoteAddress
            self.messageId = messageId
        }
    }

    /// The `format` key's value.
    package static let format = "campaign-mock-state"
    /// The document's version; a newer one is refused on import.
    package static let currentVersion = 1
}
