import CampaignMockSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of the request journal's files (see ``JournalLog``).
///
/// A file begins with ``magic`` (`campaign-mock journal 2` and a newline), then a sequence of records, each
/// a kind byte, its length as a little-endian `UInt32`, the CRC-32C of those five bytes and the payload
/// (a little-endian `UInt32`), and that many bytes of payload:
/// - `S`, a file's first record: the highest id given so far, the dropped count, and the lowest id still
///   kept, as the file began (three `Int64`s);
/// - `K`, right after it when needed: entries kept from files before the one this file replaces, as
///   `E` changes (below);
/// - `B`, one batch of the store's writer: its changes, each a kind byte and its fields: `E` an entry
///   (id, received time, duration, status, then method, target, endpoint, headers, body, reason,
///   integration key and client address as length-prefixed bytes, a length of `UInt32.max` for none),
///   `R` the same followed by the response's headers and body (what is written now; `E` is read from
///   files written before the journal kept responses),
///   `C` a clear (the integration key it is limited to, or none), `T` a trim of the batch before (the
///   lowest id it kept).
///
/// A batch is written with one `write`, so a process killed while writing leaves at most one incomplete
/// record, at the end: reading stops there and the file is cut back to the last whole record. A record
/// whose checksum does not match is damage (a disk's, or a person's): ``JournalLog`` skips it and says so.
///
/// Files of the first format (no magic, no checksums) are still read: they begin with an `S` record.
///
/// The store reads the redo log of older builds (`LeftoverRedoLog`), framed the same way, with ``scan``,
/// ``wholeRecord(in:at:kinds:format:)``, ``isCutShort(_:from:kinds:format:)`` and ``Reader``: these are
/// the package's, the rest of the format the journal's own.
package enum JournalFile {
    static let start: UInt8 = 0x53  // S
    static let kept: UInt8 = 0x4B  // K
    static let batch: UInt8 = 0x42  // B
    static let entry: UInt8 = 0x45  // E
    static let entryWithResponse: UInt8 = 0x52  // R
    static let clear: UInt8 = 0x43  // C
    static let trim: UInt8 = 0x54  // T
    /// The kinds of record a journal file holds.
    static let records = [start, kept, batch]
    /// What a file of this format begins with.
    static let magic = Array("campaign-mock journal 2\n".utf8)
    /// Kind, length and checksum.
    static let headerSize = 9
    static let none = UInt32.max
    /// The fewest bytes an `E` change takes: its kind, four integers and eight empty fields.
    static let smallestEntry = 1 + 4 * 8 + 8 * 4

    /// How a file's records are framed.
    package enum Format: Equatable {
        /// ``magic``, then records with checksums.
        case checksummed
        /// The first format: records of kind and length only, from the first byte.
        case first

        /// The format of a file that begins with `bytes`; nil for bytes that are neither (or no bytes).
        init?(of bytes: [UInt8]) {
            if bytes.starts(with: JournalFile.magic) {
                self = .checksummed
            } else if bytes.first == JournalFile.start {
                self = .first
            } else {
                return nil
            }
        }

        var headerSize: Int { self == .checksummed ? JournalFile.headerSize : 5 }
        var firstRecord: Int { self == .checksummed ? JournalFile.magic.count : 0 }
    }

    /// The bytes that begin a file: ``magic`` and its `S` record.
    static func fileStart(lastID: Int64, dropped: Int64, lowestKept: Int64) -> [UInt8] {
        var bytes = magic
        let record = begin(start, in: &bytes)
        append(lastID, to: &bytes)
        append(dropped, to: &bytes)
        append(lowestKept, to: &bytes)
        end(record, in: &bytes)
        return bytes
    }

    /// Appends an `R` change; returns where its bytes start in `bytes`.
    static func appendEntry(id: Int64, _ record: JournalRecord, to bytes: inout [UInt8]) -> Int {
        let offset = bytes.count
        bytes.append(entryWithResponse)
        append(id, to: &bytes)
        append(record.receivedAtMicros, to: &bytes)
        append(record.durationMicros, to: &bytes)
        append(Int64(record.status), to: &bytes)
        append(text: record.method, to: &bytes)
        append(text: record.target, to: &bytes)
        append(text: record.endpoint, to: &bytes)
        append(text: record.headersJSON, to: &bytes)
        append(field: record.body, to: &bytes)
        append(text: record.reason, to: &bytes)
        append(text: record.appKey, to: &bytes)
        append(text: record.remoteAddress, to: &bytes)
        append(text: record.responseHeadersJSON, to: &bytes)
        append(field: record.responseBody, to: &bytes)
        return offset
    }

    static func appendClear(appKey: String?, to bytes: inout [UInt8]) {
        bytes.append(clear)
        append(text: appKey, to: &bytes)
    }

    static func appendTrim(lowestKept: Int64, to bytes: inout [UInt8]) {
        bytes.append(trim)
        append(lowestKept, to: &bytes)
    }

    /// Starts a record of `kind` in `bytes`; ``end(_:in:)`` writes its length and checksum once its
    /// changes are in.
    static func begin(_ kind: UInt8, in bytes: inout [UInt8]) -> Int {
        let offset = bytes.count
        bytes.append(contentsOf: [kind, 0, 0, 0, 0, 0, 0, 0, 0])
        return offset
    }

    static func end(_ offset: Int, in bytes: inout [UInt8]) {
        let length = UInt32(bytes.count - offset - headerSize)
        for index in 0..<4 { bytes[offset + 1 + index] = UInt8(truncatingIfNeeded: length >> (8 * index)) }
        let crc = checksum(bytes, record: offset, payload: offset + headerSize..<bytes.count)
        for index in 0..<4 { bytes[offset + 5 + index] = UInt8(truncatingIfNeeded: crc >> (8 * index)) }
    }

    /// The kind and payload of the whole record at `position`, or nil when there is none there: too short,
    /// a kind not in `kinds`, cut short, or (in the checksummed format) a checksum that does not match.
    package static func wholeRecord(
        in bytes: [UInt8], at position: Int, kinds: [UInt8], format: Format = .checksummed
    ) -> (kind: UInt8, payload: Range<Int>)? {
        var header = Reader(bytes, from: position)
        guard let kind = try? header.byte(), kinds.contains(kind),
            let length = try? header.length(), Int(length) <= bytes.count - position - format.headerSize
        else { return nil }
        let payload = position + format.headerSize..<position + format.headerSize + Int(length)
        if format == .checksummed {
            guard let stored = try? header.length(), stored == checksum(bytes, record: position, payload: payload)
            else { return nil }
        }
        return (kind, payload)
    }

    /// Reads `bytes` from `start` on, a record after another (`record`: the one at a position and its end, nil
    /// when none begins there), handing each to `found` with the stretch before it that held none. Returns
    /// where such a stretch at the end begins; with `stoppingAtDamage`, the first one ends the reading.
    package static func scan<Record>(
        _ bytes: [UInt8], from start: Int, stoppingAtDamage: Bool = false, record: (Int) -> (Record, end: Int)?,
        found: (Record, _ end: Int, _ damagedBefore: Range<Int>?) -> Void
    ) -> Int? {
        var position = start
        var damagedFrom: Int?
        while position < bytes.count {
            guard let (parsed, end) = record(position) else {
                if stoppingAtDamage { return nil }
                if damagedFrom == nil { damagedFrom = position }
                position += 1
                continue
            }
            found(parsed, end, damagedFrom.map { $0..<position })
            damagedFrom = nil
            position = end
        }
        return damagedFrom
    }

    /// Whether the bytes from `start` on are what a write cut short leaves (nobody got an answer for what it
    /// held): zeros (a file grown but not yet written, after a power loss), too few for a header, or a
    /// record of one of `kinds` that runs past the end.
    package static func isCutShort(_ bytes: [UInt8], from start: Int, kinds: [UInt8], format: Format = .checksummed)
        -> Bool
    {
        if bytes[start...].allSatisfy({ $0 == 0 }) || bytes.count - start < format.headerSize { return true }
        var header = Reader(bytes, from: start)
        guard let kind = try? header.byte(), kinds.contains(kind), let length = try? header.length() else {
            return false
        }
        return Int(length) > bytes.count - start - format.headerSize
    }

    /// The CRC-32C of a record's kind and length (at `record`) and its payload.
    static func checksum(_ bytes: [UInt8], record: Int, payload: Range<Int>) -> UInt32 {
        CRC32C.checksum(bytes, payload, continuing: CRC32C.checksum(bytes, record..<record + 5))
    }

    static func append(_ value: Int64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    static func append(length: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: length.littleEndian) { bytes.append(contentsOf: $0) }
    }

    static func append(text: String?, to bytes: inout [UInt8]) {
        guard var text else { return append(length: none, to: &bytes) }
        // Copied as one block from the string's own bytes: appending its `utf8` view went a byte at a time.
        text.withUTF8 { utf8 in
            append(length: UInt32(utf8.count), to: &bytes)
            bytes.append(contentsOf: utf8)
        }
    }

    static func append(field: [UInt8], to bytes: inout [UInt8]) {
        append(length: UInt32(field.count), to: &bytes)
        bytes += field
    }

    /// Reads fields from a record's bytes; every read checks that the bytes are there.
    package struct Reader {
        let bytes: [UInt8]
        private(set) var position: Int
        let end: Int

        package init(_ bytes: [UInt8], from position: Int = 0, end: Int? = nil) {
            self.bytes = bytes
            self.position = position
            self.end = end ?? bytes.count
        }

        package var atEnd: Bool { position >= end }

        package mutating func byte() throws(JournalFileError) -> UInt8 {
            guard position < end else { throw .malformed }
            defer { position += 1 }
            return bytes[position]
        }

        package mutating func length() throws(JournalFileError) -> UInt32 {
            guard end - position >= 4 else { throw .malformed }
            var value: UInt32 = 0
            for index in 0..<4 { value |= UInt32(bytes[position + index]) << (8 * index) }
            position += 4
            return value
        }

        package mutating func integer() throws(JournalFileError) -> Int64 {
            guard end - position >= 8 else { throw .malformed }
            var value: UInt64 = 0
            for index in 0..<8 { value |= UInt64(bytes[position + index]) << (8 * index) }
            position += 8
            return Int64(bitPattern: value)
        }

        /// A length-prefixed field, or nil for none.
        mutating func field() throws(JournalFileError) -> ArraySlice<UInt8>? {
            let count = try length()
            if count == JournalFile.none { return nil }
            guard end - position >= Int(count) else { throw .malformed }
            defer { position += Int(count) }
            return bytes[position..<position + Int(count)]
        }

        package mutating func text() throws(JournalFileError) -> String? {
            try field().map { String(decoding: $0, as: UTF8.self) }
        }

        package mutating func requiredText() throws(JournalFileError) -> String {
            guard let text = try text() else { throw .malformed }
            return text
        }

        /// The kind byte of an entry, `E` or `R`; whether it holds the response.
        private mutating func entryKind() throws(JournalFileError) -> Bool {
            switch try byte() {
            case JournalFile.entry: return false
            case JournalFile.entryWithResponse: return true
            default: throw .malformed
            }
        }

        /// What the index of the journal keeps of an `E` or `R` change, from its kind byte on; the other
        /// fields are stepped over.
        mutating func entrySummary() throws(JournalFileError) -> (
            id: Int64, receivedAt: Int64, status: Int, endpoint: String, appKey: String?
        ) {
            let hasResponse = try entryKind()
            let id = try integer()
            let receivedAt = try integer()
            position += 8  // duration
            let status = try integer()
            try skip()  // method
            try skip()  // target
            let endpoint = try requiredText()
            try skip()  // headers
            try skip()  // body
            try skip()  // reason
            let appKey = try text()
            try skip()  // client address
            if hasResponse {
                try skip()  // response headers
                try skip()  // response body
            }
            return (id, receivedAt, Int(status), endpoint, appKey)
        }

        /// Steps over a length-prefixed field.
        mutating func skip() throws(JournalFileError) {
            let count = try length()
            if count == JournalFile.none { return }
            guard end - position >= Int(count) else { throw .malformed }
            position += Int(count)
        }

        /// An `E` or `R` change, from its kind byte on.
        mutating func entry() throws(JournalFileError) -> (id: Int64, record: JournalRecord) {
            let hasResponse = try entryKind()
            let id = try integer()
            let receivedAt = try integer()
            let duration = try integer()
            let status = try integer()
            var record = JournalRecord(
                receivedAtMicros: receivedAt, method: try requiredText(), target: try requiredText(),
                endpoint: try requiredText(), headersJSON: try requiredText(),
                body: Array(try field() ?? []), status: Int(status), reason: try text(), appKey: try text(),
                durationMicros: duration, remoteAddress: try text())
            if hasResponse {
                record.responseHeadersJSON = try text()
                record.responseBody = Array(try field() ?? [])
            }
            return (id, record)
        }
    }
}

/// Why a journal file could not be read or written.
package enum JournalFileError: Error, Equatable, CustomStringConvertible {
    /// Bytes that are not a whole record.
    case malformed
    /// A system call failed on the file.
    case system(path: String, operation: String, reason: String)

    static func system(_ path: String, _ operation: String) -> JournalFileError {
        .system(path: path, operation: operation, reason: String(cString: strerror(errno)))
    }

    package var description: String {
        switch self {
        case .malformed: return "the request journal's file holds bytes that are not a whole record"
        case .system(let path, let operation, let reason): return "request journal \(path): \(operation): \(reason)"
        }
    }
}

/// Where a journal file's bytes live: a file, or (for an in-memory store) an array.
protocol JournalStorage: AnyObject, Sendable {
    /// Writes `bytes` at `offset`, the end of what was written so far.
    func write(_ bytes: [UInt8], at offset: Int) throws(JournalFileError)
    func read(offset: Int, count: Int) throws(JournalFileError) -> [UInt8]
    /// Drops everything from `size` on.
    func truncate(to size: Int) throws(JournalFileError)
}

/// A journal file, open for reading and appending. Closed when the last entry that points into it is
/// gone, so a reader still holding one can read it after the file was replaced.
final class JournalFileStorage: JournalStorage {
    let path: String
    private let descriptor: Int32

    /// Opens the file at `path`; creates it when `create`, else returns nil when there is none.
    init?(path: String, create: Bool) throws(JournalFileError) {
        self.path = path
        let descriptor = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0o600)
        if descriptor < 0 {
            if errno == ENOENT && !create { return nil }
            throw .system(path, "open")
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The whole file.
    func readAll() throws(JournalFileError) -> [UInt8] {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .system(path, "fstat") }
        return try read(offset: 0, count: Int(status.st_size))
    }

    func write(_ bytes: [UInt8], at offset: Int) throws(JournalFileError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes {
                pwrite(descriptor, $0.baseAddress! + written, $0.count - written, off_t(offset + written))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(path, "write")
            }
            written += count
        }
    }

    func read(offset: Int, count: Int) throws(JournalFileError) -> [UInt8] {
        guard let bytes = FileBytes.read(descriptor, offset: offset, count: count) else { throw .system(path, "read") }
        return bytes
    }

    func truncate(to size: Int) throws(JournalFileError) {
        guard ftruncate(descriptor, off_t(size)) == 0 else { throw .system(path, "truncate") }
    }
}

/// The bytes of a journal file of an in-memory store.
final class JournalMemoryStorage: JournalStorage {
    private let bytes = Mutex<[UInt8]>([])

    func write(_ new: [UInt8], at offset: Int) {
        bytes.withLock {
            $0.removeSubrange(min(offset, $0.count)...)
            $0 += new
        }
    }

    func read(offset: Int, count: Int) throws(JournalFileError) -> [UInt8] {
        try bytes.withLock { bytes throws(JournalFileError) in
            guard offset + count <= bytes.count else { throw .malformed }
            return Array(bytes[offset..<offset + count])
        }
    }

    func truncate(to size: Int) {
        bytes.withLock { $0.removeSubrange(min(size, $0.count)...) }
    }
}
