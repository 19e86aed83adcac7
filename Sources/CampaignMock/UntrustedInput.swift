import CampaignMockHTTP
import CampaignMockJournal
import CampaignMockMobile
import CampaignMockModel
import CampaignMockNetwork
import CampaignMockPush
import CampaignMockSOAP
import CampaignMockStorage
import CampaignMockSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The readers of untrusted bytes, one entry each, for the fuzz targets (`Fuzz/`, `make fuzz`) and the
/// test that runs their corpus. Each reads what it is given and throws the result away: the only
/// outcomes that matter are a clean answer or a clean error.
package enum UntrustedInput: String, CaseIterable, Sendable {
    /// The HTTP/1.1 request parser, fed the bytes in two pieces (split at the first byte's value).
    case httpRequest = "http-request"
    /// A registration's form body.
    case form
    /// The `additionalParams` XML of a registration.
    case additionalParams = "additional-params"
    /// A tracking `id` (`h<messageId>,<deliveryId>,<tag>`).
    case trackingID = "tracking-id"
    /// A SOAP envelope, read as the router reads it.
    case soapEnvelope = "soap-envelope"
    /// A JSON document read as `PUT /_mock/state` reads it: checked (``JSONCheck``) whole and a few bytes at a
    /// time, which must agree, then each top-level array element by element (``JSONArrayElements``), each
    /// element again well-formed JSON.
    case stateDocument = "state-document"
    /// The HTTP/1.1 request parser with bodies spooled to a file (`PUT /_mock/state`), in pieces; a parser
    /// that keeps bodies in memory, under the same limit, must see the same requests and bodies.
    case spooledRequest = "spooled-request"
    /// A `POST /_mock/push/check` body, and the JSON in it checked as an APNs payload and as an FCM message.
    case payloadCheck = "payload-check"
    /// A config file (`--config`), resolved as at start.
    case configFile = "config-file"
    /// What an APNs server sends: the bytes an ``HTTP2Connection`` reads while it sends three requests.
    case http2Response = "http2-response"
    /// What an HTTP/1.1 server sends (an upstream, FCM, a token endpoint): followed as it arrives, in pieces,
    /// under the FCM client's limits, then read whole.
    case httpResponse = "http-response"
    /// A request journal's file (`<data-dir>/…-requests`) read at start, then every entry it kept read back.
    case journalFile = "journal-file"
    /// A redo log an older build left in a data directory (``LeftoverRedoLog``), read as a start reads it
    /// (the magic is put in front of bytes that lack it).
    case redoLog = "redo-log"

    package func read(_ bytes: [UInt8]) {
        switch self {
        case .httpRequest:
            var parser = HTTPRequestParser()
            let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
            parser.append(Array(bytes[..<split]))
            // A head waiting for the server's decision is admitted, as the listener admits most.
            func parseAll() throws(HTTPError) {
                while let event = try parser.next() {
                    if case .head = event { _ = try parser.admit(lease: nil) }
                }
            }
            do {
                try parseAll()
                parser.append(Array(bytes[split...]))
                try parseAll()
            } catch {}
        case .form:
            _ = try? FormBody(parsing: bytes)
        case .additionalParams:
            _ = try? AdditionalParamsReader.parse(String(decoding: bytes, as: UTF8.self))
        case .trackingID:
            _ = try? TrackingID(parsing: String(decoding: bytes, as: UTF8.self))
        case .soapEnvelope:
            let request = HTTPRequest(
                method: .post, target: "/nl/jsp/soaprouter.jsp", headers: [.contentType: "text/xml"], body: bytes)
            if var call = try? SOAPCall(request) {
                call.declaration = SchemaCatalogue.builtIn.method(service: call.service, name: call.method)
                for input in call.declaration?.inputs ?? [] {
                    _ = try? call.string(input.name)
                    _ = try? call.document(input.name)
                }
                _ = try? call.object()
            }
        case .stateDocument:
            Self.readStateDocument(bytes)
        case .spooledRequest:
            Self.readSpooledRequests(bytes)
        case .payloadCheck:
            Self.checkPayload(bytes)
        case .configFile:
            _ = try? Configuration.resolve(flags: [:], environment: [:], configFile: ("fuzz.json", bytes))
        case .http2Response:
            Self.exchangeHTTP2(bytes)
        case .httpResponse:
            Self.readHTTPResponse(bytes)
        case .journalFile:
            Self.readJournalFile(bytes)
        case .redoLog:
            Self.readRedoLog(bytes)
        }
    }

    /// Sequence numbers only go up, and the damaged stretches lie in the file, in order, apart.
    private static func readRedoLog(_ bytes: [UInt8]) {
        let file = bytes.starts(with: LeftoverRedoLog.magic) ? bytes : LeftoverRedoLog.magic + bytes
        let contents = LeftoverRedoLog.read(file)
        for (earlier, later) in zip(contents.operations, contents.operations.dropFirst()) {
            precondition(earlier.sequence < later.sequence, "sequence \(later.sequence) after \(earlier.sequence)")
        }
        var end = LeftoverRedoLog.magic.count
        for damage in contents.damage {
            precondition(damage.offset >= end && damage.length > 0 && damage.offset + damage.length <= file.count)
            end = damage.offset + damage.length
            _ = damage.lost
        }
    }

    private static func readHTTPResponse(_ bytes: [UInt8]) {
        var progress = ResponseProgress(
            limits: HTTPClient.Limits(headBytes: 64 << 10, bodyBytes: 1 << 20, seconds: nil))
        // Pieces of 1 to 256 bytes, as reads from a socket hand them over.
        let piece = bytes.isEmpty ? 1 : Int(bytes[0]) + 1
        var received: [UInt8] = []
        var offset = 0
        while offset < bytes.count {
            received += bytes[offset..<min(offset + piece, bytes.count)]
            offset += piece
            guard let complete = try? progress.isComplete(received) else { return }
            if complete { break }
        }
        _ = try? HTTPResponseReader.read(received)
    }

    /// The journal file, and the files a start makes beside it (`.old`, `.damaged-…`), live in a folder of
    /// this process, emptied after each input.
    private static func readJournalFile(_ bytes: [UInt8]) {
        let process = ProcessInfo.processInfo.processIdentifier
        let folder = CampaignMockApp.temporaryFolder + "/campaign-mock-fuzz-journal-\(process)"
        _ = FileBytes.makeDirectories(folder)
        let path = folder + "/state.sqlite-requests"
        defer { FileBytes.removeFiles(in: folder) }
        guard FileBytes.writeAtomically(bytes, to: path), let journal = try? JournalLog(path: path, limit: 64) else {
            return
        }
        let last = journal.lastID
        for id in stride(from: last, to: max(0, last - 128), by: -1) { _ = try? journal.entry(id: id) }
        _ = try? journal.page(.newestFirst(before: nil), limit: 64, filter: JournalFilter(), upTo: nil, counting: true)
    }

    private static func readStateDocument(_ bytes: [UInt8]) {
        let whole = JSONCheck.problem(in: bytes)
        // Short reads move the checker's window as a document of gigabytes does.
        let pieces = ShortReads(bytes: bytes, most: 1 + bytes.count % 31)
        switch JSONCheck.members(of: pieces) {
        case .failure(let problem):
            precondition(problem == whole, "read a piece at a time: \(problem); whole: \(String(describing: whole))")
        case .success(let members):
            precondition(whole == nil, "read whole: \(String(describing: whole)); a piece at a time: no problem")
            for member in members where bytes[member.range.lowerBound] == UInt8(ascii: "[") {
                try? JSONArrayElements(source: pieces, range: member.range).readEach { index, element in
                    precondition(JSONCheck.problem(in: element) == nil, "\(member.name)[\(index)] is not JSON")
                    _ = try? JSONDecoder().decode(JSONValue.self, from: Data(element))
                }
            }
        }
    }

    private static func readSpooledRequests(_ bytes: [UInt8]) {
        let limits = HTTPRequestParser.Limits(bodyBytes: 32 << 10)
        var spooling = HTTPRequestParser(
            limits: limits,
            spooling: BodySpooling(
                directory: CampaignMockApp.temporaryFolder, limit: limits.bodyBytes,
                routes: [.init(.put, "/_mock/state")]))
        var inMemory = HTTPRequestParser(limits: limits)
        // Pieces of 1 to 256 bytes: the body reaches the file in as many writes.
        let piece = bytes.isEmpty ? 1 : Int(bytes[0]) + 1
        var offset = 0
        while offset < bytes.count {
            let next = Array(bytes[offset..<min(offset + piece, bytes.count)])
            offset += next.count
            spooling.append(next)
            inMemory.append(next)
            while true {
                let spooled = Result { () throws(HTTPError) in try nextAdmitted(&spooling) }
                let kept = Result { () throws(HTTPError) in try nextAdmitted(&inMemory) }
                switch (spooled, kept) {
                case (.success(nil), .success(nil)): break
                case (.success(.continueExpected?), .success(.continueExpected?)): continue
                case (.success(.request(let first)?), .success(.request(let second)?)):
                    precondition(first.method == second.method && first.target == second.target)
                    let body = first.spooledBody.map { file in
                        // Read back in pieces too.
                        stride(from: 0, to: file.count, by: piece).flatMap {
                            (try? file.read(at: $0, length: piece)) ?? []
                        }
                    }
                    precondition((body ?? first.body) == second.body, "the spooled body differs")
                    continue
                case (.failure(let first), .failure(let second)):
                    precondition(first == second, "spooled: \(first); in memory: \(second)")
                    return
                default:
                    preconditionFailure("spooled: \(spooled); in memory: \(kept)")
                }
                break
            }
        }
    }

    /// The parser's next event, a head (of a spooled body, or of a request awaiting `100 Continue`) admitted
    /// at once, as the server does for a request its access checks let through.
    private static func nextAdmitted(_ parser: inout HTTPRequestParser) throws(HTTPError) -> HTTPRequestParser.Progress?
    {
        var event = try parser.next()
        if case .head? = event {
            event = try parser.admit(lease: nil)
            if event == nil { event = try parser.next() }
        }
        return event
    }

    private static func checkPayload(_ bytes: [UInt8]) {
        guard JSONCheck.problem(in: bytes) == nil else { return }
        if let value = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) {
            _ = try? JSONEncoder().encode(PayloadChecker.apns(value))
            _ = try? JSONEncoder().encode(PayloadChecker.fcm(value))
        }
        if let request = try? JSONDecoder().decode(PayloadCheck.Request.self, from: Data(bytes)),
            let (platform, payload) = try? request.payload()
        {
            _ = platform == .ios ? PayloadChecker.apns(payload) : PayloadChecker.fcm(payload)
        }
    }

    private static func exchangeHTTP2(_ bytes: [UInt8]) {
        let server = ScriptedServer(bytes: bytes)
        guard let connection = try? HTTP2Connection(transport: server, authority: "api.push.apple.com") else { return }
        let headers = [
            HTTP2Connection.HTTPHeaderField("apns-topic", "com.example.app"),
            HTTP2Connection.HTTPHeaderField("apns-push-type", "alert"),
        ]
        let body = Array(#"{"aps":{"alert":"Hi"},"_mId":"1","_dId":"7a001"}"#.utf8)
        for _ in 0..<3 where connection.isUsable {
            _ = try? connection.send("POST", "/3/device/6e6577", headers: headers, body: body)
        }
        connection.close()
    }
}

/// A byte source that reads at most `most` bytes at a time.
private struct ShortReads: ByteSource {
    let bytes: [UInt8]
    let most: Int

    var count: Int { bytes.count }

    func read(at offset: Int, length: Int) throws -> [UInt8] {
        try bytes.read(at: offset, length: min(length, most))
    }
}

/// A server whose answer is the given bytes, read a frame at a time as a server writes them (its 9-byte head
/// says how long a frame is), so that each request meets the frames after the previous answer. What the
/// client writes is dropped.
private final class ScriptedServer: HTTP2Transport {
    private let bytes: [UInt8]
    private var offset = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    func writeAll(_ bytes: [UInt8]) {}

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var count = bytes.count - offset
        if count >= 9 {
            count = min(count, 9 + (Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])))
        }
        count = min(count, buffer.count)
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
        offset += count
        return count
    }

    func close() {}
}
