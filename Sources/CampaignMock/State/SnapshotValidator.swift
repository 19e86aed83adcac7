/// Checks a snapshot completely before anything is replaced, so a bad one is refused with a reason
/// and changes nothing.
enum SnapshotValidator {
    /// Microseconds since 1970 for a snapshot time, to the millisecond the export writes.
    static func microseconds(_ text: String) -> Int64? {
        RFC3339.microseconds(text).map { $0 / 1000 * 1000 }
    }

    /// - Throws: ``SnapshotError`` naming the first problem.
    static func validate(_ snapshot: Snapshot) throws(SnapshotError) {
        guard snapshot.format == "campaign-mock-state", snapshot.version == Snapshot.currentVersion else {
            throw SnapshotError("format must be 'campaign-mock-state' version \(Snapshot.currentVersion)")
        }
        var keys: Set<String> = []
        for (index, application) in snapshot.applications.enumerated() {
            do {
                try application.validate()
            } catch {
                throw SnapshotError("applications[\(index)]: \(error.message)")
            }
            guard keys.insert(application.integrationKey).inserted else {
                throw SnapshotError(
                    "applications[\(index)]: integration key '\(application.integrationKey)' is repeated")
            }
        }
        var devices: Set<String> = []
        for (index, device) in snapshot.devices.enumerated() {
            let place = "devices[\(index)]"
            guard keys.contains(device.integrationKey) else {
                throw SnapshotError("\(place): no application with integration key '\(device.integrationKey)'")
            }
            guard !device.registrationToken.isEmpty else { throw SnapshotError("\(place): empty registrationToken") }
            guard devices.insert(device.integrationKey + "\u{0}" + device.registrationToken).inserted else {
                throw SnapshotError("\(place): token '\(device.registrationToken)' is repeated in its application")
            }
            let names = device.params.map(\.name)
            guard Set(names).count == names.count else { throw SnapshotError("\(place): a param name is repeated") }
            try time(device.createdAt, "\(place).createdAt")
            try time(device.updatedAt, "\(place).updatedAt")
            for (entry, registration) in device.history.enumerated() {
                try time(registration.receivedAt, "\(place).history[\(entry)].receivedAt")
            }
        }
        var messages: Set<String> = []
        for (index, message) in snapshot.messages.enumerated() {
            let place = "messages[\(index)]"
            guard TrackingID.isUUID(message.messageId) || Int64(message.messageId) != nil else {
                throw SnapshotError("\(place): messageId must be a decimal or a UUID")
            }
            guard messages.insert(message.messageId).inserted else {
                throw SnapshotError("\(place): messageId '\(message.messageId)' is repeated")
            }
            guard !message.deliveryId.isEmpty else { throw SnapshotError("\(place): empty deliveryId") }
            if let key = message.integrationKey, !keys.contains(key) {
                throw SnapshotError("\(place): no application with integration key '\(key)'")
            }
            if let token = message.registrationToken,
                !devices.contains((message.integrationKey ?? "") + "\u{0}" + token)
            {
                throw SnapshotError("\(place): no device '\(token)' in its application")
            }
            try time(message.createdAt, "\(place).createdAt")
        }
        for (index, event) in snapshot.events.enumerated() {
            let place = "events[\(index)]"
            do {
                _ = try TrackingID(parsing: event.rawId)
            } catch {
                throw SnapshotError("\(place).rawId: \(error.message)")
            }
            if let message = event.messageId, !messages.contains(message) {
                throw SnapshotError("\(place): no message '\(message)'")
            }
            try time(event.receivedAt, "\(place).receivedAt")
        }
        let ids = snapshot.faults.compactMap(\.id)
        guard Set(ids).count == ids.count else { throw SnapshotError("faults: ids must be unique") }
        for (index, rule) in snapshot.faults.enumerated() {
            do {
                try rule.validate()
            } catch {
                throw SnapshotError("faults[\(index)]: \(error.message)")
            }
        }
    }

    private static func time(_ text: String, _ place: String) throws(SnapshotError) {
        guard microseconds(text) != nil else { throw SnapshotError("\(place): '\(text)' is not an RFC 3339 time") }
    }
}

/// Why a snapshot was refused.
struct SnapshotError: Error, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}
