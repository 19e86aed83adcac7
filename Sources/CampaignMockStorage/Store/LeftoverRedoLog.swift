import CampaignMockJournal
import CampaignMockModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A write an older build answered before SQLite committed it, as its redo log holds it (see
/// ``LeftoverRedoLog``): the two writes every mobile request makes, and nothing else.
enum RedoOperation: Sendable, Equatable {
    /// ``StoreTransaction/register(_:application:receivedAt:)``, with the application's row id.
    case registration(RegistrationRequest, applicationID: Int64, receivedAt: Int64)
    /// ``StoreTransaction/recordHit(_:userAgent:remoteAddress:receivedAt:)``, with the id as sent.
    case hit(rawID: String, userAgent: String?, remoteAddress: String?, receivedAt: Int64)
}

/// The redo log an older build kept beside the database (`campaign-mock.sqlite3-redo`): registrations and
/// tracking hits it answered before SQLite committed them. No build writes one any more (every batch
/// commits before its requests are answered); a start that finds one applies what it holds once:
///
/// - the operations above the watermark of the last commit (`store_counters`, row `redo-applied`, read
///   inside the transaction that applies them) are applied in order, in one transaction that moves the
///   watermark past them, and the file is removed;
/// - a damaged record (a checksum that does not match, bytes that are no record, a sequence number that
///   does not fit) is skipped and named (the file, the offset, the sequence numbers lost); the records
///   after it are still applied, and the file is moved aside as `<file>.damaged-<time>`, never deleted;
/// - a file that does not begin with ``magic`` is moved aside the same way, untouched;
/// - a link, or a file that is not a regular file of this user's, is refused: the start fails, saying so.
///
/// The file is ``magic``, then records framed as the request journal's (``JournalFile``): kind `W`, its
/// length and CRC-32C, then the first operation's sequence number and the operations, each a kind byte
/// (`G` a registration, `H` a hit) and its fields. A last record cut short by a kill was never answered:
/// it is not damage.
package enum LeftoverRedoLog {
    package static let magic = Array("campaign-mock redo 1\n".utf8)
    static let batch: UInt8 = 0x57  // W
    static let registration: UInt8 = 0x47  // G
    static let hit: UInt8 = 0x48  // H

    /// A line for the server's log about what the start did with the file.
    package struct Note: Sendable, Equatable, CustomStringConvertible {
        /// Whether something was lost or kept aside (said as an error), or all went well.
        package let isDamage: Bool
        package let description: String
    }

    /// A damaged stretch of the file: where it begins, how long it is, and the sequence numbers lost.
    package struct Damage: Equatable {
        package let offset: Int
        package let length: Int
        /// The last sequence number read before it (0: none), and the first after it (nil: none).
        package let lastBefore: Int64
        package let firstAfter: Int64?

        package var lost: String {
            guard let firstAfter else { return "operations after \(lastBefore) (how many is not known)" }
            if firstAfter == lastBefore + 1 { return "no operation (the damage held no whole record)" }
            return firstAfter - 1 == lastBefore + 1
                ? "operation \(lastBefore + 1)" : "operations \(lastBefore + 1) to \(firstAfter - 1)"
        }
    }

    /// What a file's bytes hold.
    package struct Contents: Equatable {
        package var operations: [Found] = []
        package var damage: [Damage] = []
    }

    package struct Found: Equatable {
        package let sequence: Int64
        let operation: RedoOperation
    }

    /// Reads the file at `path`, if there is one, and applies it to `connection` (see the type's comment).
    ///
    /// - Throws: ``StoreError/unsafeFile(path:reason:)`` for a link or a file not of this user's;
    ///   ``SQLiteError`` when the database refuses the writes (the file stays for the next start).
    static func apply(at path: String, on connection: SQLiteConnection, journal: JournalLog) throws -> [Note] {
        guard let bytes = try DataFile.readIfPresent(path) else { return [] }
        guard bytes.starts(with: magic) else {
            // Empty, or cut before its magic was whole: an older build had just made it.
            if magic.starts(with: bytes) {
                unlink(path)
                return []
            }
            let kept = DataFile.moveAsideSaying(path)
            return [Note(isDamage: true, description: "redo log \(path) does not begin as one: \(kept), not read")]
        }
        let contents = read(bytes)
        var notes: [Note] = []
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let applied =
                try connection.scalar("SELECT value FROM store_counters WHERE name = 'redo-applied'").integer ?? 0
            let operations = contents.operations.filter { $0.sequence > applied }
            if let last = operations.last {
                let skipped = try StoreTransaction(connection: connection, journal: journal)
                    .applyAgain(operations.map(\.operation))
                try connection.query(
                    """
                    INSERT INTO store_counters (name, value) VALUES ('redo-applied', ?)
                    ON CONFLICT (name) DO UPDATE SET value = excluded.value
                    """, [last.sequence])
                notes += skipped.map { Note(isDamage: true, description: "redo log \(path): \($0)") }
                notes.append(
                    Note(
                        isDamage: false,
                        description: "redo log \(path): applied \(operations.count - skipped.count) answered "
                            + "operation(s) an older build had not committed"))
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        if contents.damage.isEmpty {
            unlink(path)
        } else {
            let kept = DataFile.moveAsideSaying(path)
            for damage in contents.damage {
                notes.append(
                    Note(
                        isDamage: true,
                        description: "redo log \(path): \(damage.length) damaged bytes at offset \(damage.offset) "
                            + "skipped: \(damage.lost) lost; \(kept)"))
            }
        }
        return notes
    }

    /// The operations of every whole record of a file's `bytes` (which begin with ``magic``) and its
    /// damaged stretches. Sequence numbers only go up: a record that would take them back, or past
    /// `Int64.max`, is damage.
    package static func read(_ bytes: [UInt8]) -> Contents {
        var contents = Contents()
        var last: Int64 = 0
        let damagedEnd = JournalFile.scan(bytes, from: magic.count) {
            record(in: bytes, at: $0, after: last)
        } found: { operations, _, damaged in
            if let damaged {
                contents.damage.append(
                    Damage(
                        offset: damaged.lowerBound, length: damaged.count, lastBefore: last,
                        firstAfter: operations[0].sequence))
            }
            contents.operations += operations
            last = operations[operations.count - 1].sequence
        }
        if let start = damagedEnd, !JournalFile.isCutShort(bytes, from: start, kinds: [batch]) {
            contents.damage.append(
                Damage(offset: start, length: bytes.count - start, lastBefore: last, firstAfter: nil))
        }
        return contents
    }

    /// The operations of the whole record at `position` and where the next begins; nil when there is
    /// none (not whole, a checksum that does not match, fields that do not parse, no operation, a first
    /// sequence number not above `last`, or one that would pass `Int64.max`).
    private static func record(in bytes: [UInt8], at position: Int, after last: Int64) -> ([Found], end: Int)? {
        guard let (_, payload) = JournalFile.wholeRecord(in: bytes, at: position, kinds: [batch]) else { return nil }
        var reader = JournalFile.Reader(bytes, from: payload.lowerBound, end: payload.upperBound)
        var operations: [Found] = []
        do {
            var sequence = try reader.integer()
            guard sequence > last else { return nil }
            while !reader.atEnd {
                operations.append(Found(sequence: sequence, operation: try operation(&reader)))
                let (following, overflow) = sequence.addingReportingOverflow(1)
                guard !overflow else { return nil }
                sequence = following
            }
        } catch {
            return nil
        }
        return operations.isEmpty ? nil : (operations, payload.upperBound)
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
    /// Applies `operations` again, in order, noting nothing for the sink; returns what could not be
    /// applied (an application gone, an id that no longer parses), which is skipped.
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
                    skipped.append("its \(operation.summary) could not be applied: \(error)")
                }
            }
        }
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
