import CampaignMockHTTP
import CampaignMockModel
import CampaignMockRuntime
import CampaignMockStorage
import CampaignMockSupport
import CampaignMockSystem

/// `PUT /_mock/state`: a snapshot document read and written a row at a time, so that importing a store of
/// millions of rows costs about as much memory as its largest row.
///
/// The document is read twice: once to check its JSON and find its sections, whatever their order (the
/// export sorts its keys, so `events` comes before `messages`), then section by section in the order rows
/// refer to each other: applications, devices, messages, events. Every row is checked against the ones
/// before it (in the store's indexes, not in memory) and written in the same transaction; the first
/// problem throws, the transaction rolls back, and nothing has changed.
struct SnapshotImport {
    /// What one import brought in, by section.
    struct Counts: Encodable {
        var applications = 0
        var devices = 0
        var messages = 0
        var events = 0
        var faults = 0
    }

    private let source: any ByteSource
    private let sections: [String: Range<Int>]
    /// Small enough to hold: they are checked before the store is touched.
    let faults: [FaultRule]

    private static let arraySections = ["applications", "devices", "messages", "events", "faults"]

    /// Checks what can be checked without the store: the JSON, the sections, the format, the fault rules.
    ///
    /// - Throws: ``AdminError`` (400) with the reason.
    init(_ source: any ByteSource) throws {
        guard source.count > 0 else { throw AdminError(.badRequest, "expected a JSON body") }
        let members: [JSONCheck.Member]
        switch JSONCheck.members(of: source) {
        case .success(let found): members = found
        case .failure(.duplicateKey(let key, let path)):
            throw AdminError(.badRequest, "field " + JSONCheck.Problem.duplicateKey(key: key, path: path).description)
        case .failure(.overLimit(let limit, let path)):
            throw Self.refused(JSONCheck.Problem.overLimit(limit: limit, path: path).description)
        case .failure(let problem):
            throw AdminError(.badRequest, "the body is not valid JSON: \(problem)")
        }
        let first = try source.read(at: 0, length: 4096).first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard first == UInt8(ascii: "{") else { throw AdminError(.badRequest, "the body must be a JSON object") }
        var sections: [String: Range<Int>] = [:]
        for member in members {
            guard Self.arraySections.contains(member.name) || ["format", "version"].contains(member.name) else {
                throw AdminError(.badRequest, "unknown field '\(member.name)'")
            }
            sections[member.name] = member.range
        }
        self.source = source
        self.sections = sections
        let format: String = try Self.value("format", of: source, sections)
        let version: Int = try Self.value("version", of: source, sections)
        guard format == Snapshot.format, version == Snapshot.currentVersion else {
            throw Self.refused("format must be '\(Snapshot.format)' version \(Snapshot.currentVersion)")
        }
        for name in Self.arraySections {
            guard let range = sections[name] else { throw AdminError(.badRequest, "missing field '\(name)'") }
            guard try source.read(at: range.lowerBound, length: 1) == [UInt8(ascii: "[")] else {
                throw AdminError(.badRequest, "field '\(name)' must be an array")
            }
        }
        var faults: [FaultRule] = []
        try Self.elements("faults", of: source, sections) { index, bytes in
            // The registry's own limit, checked before the store is touched, so an import never half-succeeds.
            guard index < FaultRegistry.limit else {
                throw Self.refused("faults: at most \(FaultRegistry.limit) fault rules")
            }
            let rule = try AdminResponse.decodeChecked(FaultRule.self, from: bytes, at: "faults.\(index)")
            do throws(FaultRuleError) {
                try rule.validate()
            } catch {
                throw Self.refused("faults[\(index)]: \(error.message)")
            }
            faults.append(rule)
        }
        let ids = faults.compactMap(\.id)
        guard Set(ids).count == ids.count else { throw Self.refused("faults: ids must be unique") }
        self.faults = faults
    }

    /// Replaces the store's applications, devices, messages and events with the document's, inside the
    /// writer's transaction `store`.
    ///
    /// - Throws: ``AdminError`` (400) naming the first row that is wrong; the caller's transaction then
    ///   rolls back.
    func replace(in store: StoreTransaction) throws -> Counts {
        var counts = Counts(faults: faults.count)
        try store.clearForSnapshot()
        var applications: [String: Int64] = [:]
        try elements("applications") { index, bytes in
            let application = try decode(Application.self, bytes, "applications", index)
            do throws(ApplicationError) {
                try application.validate()
            } catch {
                throw Self.refused("applications[\(index)]: \(error.message)")
            }
            guard applications[application.integrationKey] == nil else {
                throw Self.refused(
                    "applications[\(index)]: integration key '\(application.integrationKey)' is repeated")
            }
            applications[application.integrationKey] = try store.importApplication(application)
            counts.applications += 1
        }
        try elements("devices") { index, bytes in
            let device = try decode(Snapshot.Device.self, bytes, "devices", index)
            let place = "devices[\(index)]"
            guard let application = applications[device.integrationKey] else {
                throw Self.refused("\(place): no application with integration key '\(device.integrationKey)'")
            }
            guard !device.registrationToken.isEmpty else { throw Self.refused("\(place): empty registrationToken") }
            guard try store.importedDeviceID(applicationID: application, token: device.registrationToken) == nil else {
                throw Self.refused("\(place): token '\(device.registrationToken)' is repeated in its application")
            }
            let names = device.params.map(\.name)
            guard Set(names).count == names.count else { throw Self.refused("\(place): a param name is repeated") }
            try Self.time(device.createdAt, "\(place).createdAt")
            try Self.time(device.updatedAt, "\(place).updatedAt")
            for (entry, registration) in device.history.registrations.enumerated() {
                try Self.time(registration.receivedAt, "\(place).history[\(entry)].receivedAt")
            }
            try store.importDevice(device, applicationID: application) { Self.microseconds($0) ?? 0 }
            counts.devices += 1
        }
        try elements("messages") { index, bytes in
            let message = try decode(Snapshot.Message.self, bytes, "messages", index)
            let place = "messages[\(index)]"
            guard TrackingID.isUUID(message.messageId) || Int64(message.messageId) != nil else {
                throw Self.refused("\(place): messageId must be a decimal or a UUID")
            }
            guard try store.importedMessage(message.messageId) == nil else {
                throw Self.refused("\(place): messageId '\(message.messageId)' is repeated")
            }
            guard !message.deliveryId.isEmpty else { throw Self.refused("\(place): empty deliveryId") }
            var application: Int64?
            if let key = message.integrationKey {
                guard let found = applications[key] else {
                    throw Self.refused("\(place): no application with integration key '\(key)'")
                }
                application = found
            }
            var device: Int64?
            if let token = message.registrationToken {
                guard let application, let found = try store.importedDeviceID(applicationID: application, token: token)
                else { throw Self.refused("\(place): no device '\(token)' in its application") }
                device = found
            }
            try Self.time(message.createdAt, "\(place).createdAt")
            try store.insertMessage(
                messageID: message.messageId, deliveryID: message.deliveryId, deviceID: device,
                applicationID: application, createdAt: Self.microseconds(message.createdAt) ?? 0)
            counts.messages += 1
        }
        try elements("events") { index, bytes in
            let event = try decode(Snapshot.TrackingHit.self, bytes, "events", index)
            let place = "events[\(index)]"
            let id: TrackingID
            do throws(TrackingError) {
                id = try TrackingID(parsing: event.rawId)
            } catch {
                throw Self.refused("\(place).rawId: \(error.message)")
            }
            var link: (row: Int64, device: Int64?, application: Int64?)?
            if let message = event.messageId {
                guard let found = try store.importedMessage(message) else {
                    throw Self.refused("\(place): no message '\(message)'")
                }
                link = found
            }
            try Self.time(event.receivedAt, "\(place).receivedAt")
            try store.insertTrackingHit(
                id, userAgent: event.userAgent, remoteAddress: event.remoteAddress,
                receivedAt: Self.microseconds(event.receivedAt) ?? 0, messageRef: link?.row, deviceID: link?.device,
                applicationID: link?.application)
            counts.events += 1
        }
        return counts
    }

    /// Microseconds since 1970 for a snapshot time, to the millisecond the export writes.
    static func microseconds(_ text: String) -> Int64? {
        RFC3339.microseconds(text).map { $0 / 1000 * 1000 }
    }

    // MARK: - Reading

    private func elements(_ section: String, _ body: (Int, [UInt8]) throws -> Void) throws {
        try Self.elements(section, of: source, sections, body)
    }

    private static func elements(
        _ section: String, of source: any ByteSource, _ sections: [String: Range<Int>],
        _ body: (Int, [UInt8]) throws -> Void
    ) throws {
        guard let range = sections[section] else { return }
        do {
            try JSONArrayElements(source: source, range: range).readEach(body)
        } catch let tooLarge as JSONArrayElements.ElementTooLarge {
            throw refused("\(section)[\(tooLarge.index)] is over \(tooLarge.limit >> 20) MiB, the most one row may be")
        }
    }

    private func decode<T: Codable>(_ type: T.Type, _ bytes: [UInt8], _ section: String, _ index: Int) throws -> T {
        try AdminResponse.decodeChecked(type, from: bytes, at: "\(section).\(index)")
    }

    private static func value<T: Codable>(
        _ name: String, of source: any ByteSource, _ sections: [String: Range<Int>]
    ) throws -> T {
        guard let range = sections[name] else { throw AdminError(.badRequest, "missing field '\(name)'") }
        let bytes = try source.read(at: range.lowerBound, length: min(range.count, 4096))
        return try AdminResponse.decodeChecked(T.self, from: bytes, at: name)
    }

    private static func time(_ text: String, _ place: String) throws {
        guard microseconds(text) != nil else { throw refused("\(place): '\(text)' is not an RFC 3339 time") }
    }

    private static func refused(_ reason: String) -> AdminError {
        AdminError(.badRequest, "snapshot refused, nothing changed: \(reason)")
    }
}
