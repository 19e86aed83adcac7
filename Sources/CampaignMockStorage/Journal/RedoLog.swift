package import CampaignMockModel

/// A write the store answered before SQLite committed it, as its redo log holds it (see ``RedoLog``):
/// the two writes every mobile request makes, and nothing else.
package enum RedoOperation: Sendable, Equatable {
    /// ``StoreTransaction/register(_:application:receivedAt:)``, with the application's row id.
    case registration(RegistrationRequest, applicationID: Int64, receivedAt: Int64)
    /// ``StoreTransaction/recordHit(_:userAgent:remoteAddress:receivedAt:)``, with the id as sent.
    case hit(rawID: String, userAgent: String?, remoteAddress: String?, receivedAt: Int64)
}

/// The store's redo log: registrations and tracking hits that are answered but may not be in SQLite yet.
///
/// The writer commits SQLite at most every ``Store`` commit delay (or before any read, see
/// ``Store/read(_:)``), not once per batch: a commit writes every page a batch changed to SQLite's WAL,
/// with a checksum over each, which was a fifth of a registration's instructions. A batch of only
/// registrations and hits is made durable instead by one `write` of its operations to this file, before
/// any of its requests is answered. Like the WAL at `synchronous=NORMAL`, the file survives the process
/// being killed, not a power cut.
///
/// Each commit stores the sequence number of the last operation it applied (`store_counters`, row
/// `redo-applied`) in the same transaction, then empties the file. At start, operations in the file above
/// that number were answered but never committed: the store applies them again, in order, to the
/// database as the last commit left it, which gives the same rows (and row ids) they had.
///
/// The file is ``magic``, then records framed as the request journal's (``JournalFile``): kind `W`, its
/// length and CRC-32C, then the first operation's sequence number and the operations, each a kind byte
/// (`G` a registration, `H` a hit) and its fields. A record cut short by a kill is never answered, so
/// reading stops at the first record that is not whole.
final class RedoLog {
    static let magic = Array("campaign-mock redo 1\n".utf8)
    static let batch: UInt8 = 0x57  // W
    static let registration: UInt8 = 0x47  // G
    static let hit: UInt8 = 0x48  // H

    private let storage: JournalFileStorage
    /// The file's length: where the next record goes.
    private var size: Int
    /// The sequence number the next operation gets.
    private(set) var nextSequence: Int64 = 1
    /// What the file held at open, with each operation's sequence number.
    private(set) var found: [(sequence: Int64, operation: RedoOperation)] = []

    /// Opens (or creates) the log at `path` and reads what it holds.
    init(path: String) throws(JournalFileError) {
        guard let storage = try JournalFileStorage(path: path, create: true) else { throw .malformed }
        self.storage = storage
        let bytes = try storage.readAll()
        size = bytes.count
        guard bytes.starts(with: Self.magic) else {
            // A new file (or one cut before its magic was whole).
            try storage.truncate(to: 0)
            try storage.write(Self.magic, at: 0)
            size = Self.magic.count
            return
        }
        var position = Self.magic.count
        while let (operations, next) = Self.record(in: bytes, at: position) {
            found += operations
            position = next
        }
        if position < bytes.count {
            try storage.truncate(to: position)
            size = position
        }
        nextSequence = (found.last?.sequence ?? 0) + 1
    }

    /// Numbers from `sequence` on for the operations to come (past those a commit already applied).
    func continueAfter(_ sequence: Int64) {
        nextSequence = max(nextSequence, sequence + 1)
    }

    /// Writes `operations` as one record; returns the last one's sequence number.
    @discardableResult
    func append(_ operations: [RedoOperation]) throws(JournalFileError) -> Int64 {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 * operations.count)
        let record = JournalFile.begin(Self.batch, in: &bytes)
        JournalFile.append(nextSequence, to: &bytes)
        for operation in operations { Self.append(operation, to: &bytes) }
        JournalFile.end(record, in: &bytes)
        try storage.write(bytes, at: size)
        size += bytes.count
        nextSequence += Int64(operations.count)
        return nextSequence - 1
    }

    /// Empties the log (after a commit applied all it held).
    func clear() throws(JournalFileError) {
        try storage.truncate(to: Self.magic.count)
        size = Self.magic.count
        found = []
    }

    private static func append(_ operation: RedoOperation, to bytes: inout [UInt8]) {
        switch operation {
        case .registration(let registration, let applicationID, let receivedAt):
            bytes.append(Self.registration)
            JournalFile.append(receivedAt, to: &bytes)
            JournalFile.append(applicationID, to: &bytes)
            JournalFile.append(text: registration.registrationToken, to: &bytes)
            JournalFile.append(text: registration.integrationKey, to: &bytes)
            JournalFile.append(text: registration.userKey, to: &bytes)
            let device = registration.device
            JournalFile.append(text: device.deviceImei, to: &bytes)
            JournalFile.append(text: device.deviceName, to: &bytes)
            JournalFile.append(text: device.deviceModel, to: &bytes)
            JournalFile.append(text: device.deviceBrand, to: &bytes)
            JournalFile.append(text: device.deviceManufacturer, to: &bytes)
            JournalFile.append(text: device.osName, to: &bytes)
            JournalFile.append(text: device.osVersion, to: &bytes)
            JournalFile.append(text: device.osLanguage, to: &bytes)
            JournalFile.append(length: UInt32(registration.params.count), to: &bytes)
            for param in registration.params {
                JournalFile.append(text: param.name, to: &bytes)
                JournalFile.append(text: param.value, to: &bytes)
                JournalFile.append(text: param.kind.rawValue, to: &bytes)
            }
        case .hit(let rawID, let userAgent, let remoteAddress, let receivedAt):
            bytes.append(Self.hit)
            JournalFile.append(receivedAt, to: &bytes)
            JournalFile.append(text: rawID, to: &bytes)
            JournalFile.append(text: userAgent, to: &bytes)
            JournalFile.append(text: remoteAddress, to: &bytes)
        }
    }

    /// The operations of the whole record at `position` and where the next begins; nil when there is
    /// none, or it is not whole or its checksum does not match.
    private static func record(in bytes: [UInt8], at position: Int) -> (
        [(sequence: Int64, operation: RedoOperation)], next: Int
    )? {
        guard let (_, payload) = JournalFile.wholeRecord(in: bytes, at: position, kinds: [batch]) else { return nil }
        var reader = JournalFile.Reader(bytes, from: payload.lowerBound, end: payload.upperBound)
        var operations: [(sequence: Int64, operation: RedoOperation)] = []
        do {
            var sequence = try reader.integer()
            while !reader.atEnd {
                operations.append((sequence, try operation(&reader)))
                sequence += 1
            }
        } catch {
            return nil
        }
        return (operations, payload.upperBound)
    }

    private static func operation(_ reader: inout JournalFile.Reader) throws(JournalFileError) -> RedoOperation {
        switch try reader.byte() {
        case registration:
            let receivedAt = try reader.integer()
            let applicationID = try reader.integer()
            let token = try reader.requiredText()
            let integrationKey = try reader.requiredText()
            let userKey = try reader.requiredText()
            let device = DeviceFields(
                deviceImei: try reader.text(), deviceName: try reader.text(), deviceModel: try reader.text(),
                deviceBrand: try reader.text(), deviceManufacturer: try reader.text(), osName: try reader.text(),
                osVersion: try reader.text(), osLanguage: try reader.text())
            var params: [AdditionalParam] = []
            for _ in 0..<(try reader.length()) {
                let name = try reader.requiredText()
                let value = try reader.requiredText()
                guard let kind = AdditionalParam.Kind(rawValue: try reader.requiredText()) else { throw .malformed }
                params.append(AdditionalParam(name: name, value: value, kind: kind))
            }
            return .registration(
                RegistrationRequest(
                    registrationToken: token, integrationKey: integrationKey, userKey: userKey, device: device,
                    params: params), applicationID: applicationID, receivedAt: receivedAt)
        case hit:
            let receivedAt = try reader.integer()
            return .hit(
                rawID: try reader.requiredText(), userAgent: try reader.text(), remoteAddress: try reader.text(),
                receivedAt: receivedAt)
        default:
            throw .malformed
        }
    }
}

extension StoreTransaction {
    /// Applies `operations` again, in order, noting nothing for the sink or the redo log; returns what
    /// could not be applied (an application gone, an id that no longer parses), which is skipped.
    func applyAgain(_ operations: [RedoOperation]) throws -> [String] {
        var skipped: [String] = []
        var applications: [Int64: StoredApplication]?
        try withoutRecording {
            for operation in operations {
                do {
                    switch operation {
                    case .registration(let registration, let applicationID, let receivedAt):
                        if applications == nil {
                            applications = Dictionary(
                                try reader.storedApplications().map { ($0.id, $0) }, uniquingKeysWith: { $1 })
                        }
                        guard let application = applications?[applicationID] else {
                            throw StoreConflict("application \(registration.integrationKey) is gone")
                        }
                        try register(registration, application: application, receivedAt: receivedAt)
                    case .hit(let rawID, let userAgent, let remoteAddress, let receivedAt):
                        try recordHit(
                            try TrackingID(parsing: rawID), userAgent: userAgent, remoteAddress: remoteAddress,
                            receivedAt: receivedAt)
                    }
                } catch let error as SQLiteError {
                    throw error  // the database refused a write: not this operation's fault
                } catch {
                    skipped.append("the redo log's \(operation.summary) could not be applied again: \(error)")
                }
            }
        }
        connection.redoOperations.removeAll()
        connection.redoRowChanges = 0
        return skipped
    }
}

extension RedoOperation {
    /// What the operation is, for a message.
    var summary: String {
        switch self {
        case .registration(let registration, _, _): "registration of \(registration.registrationToken)"
        case .hit(let rawID, _, _, _): "tracking hit \(rawID)"
        }
    }
}
