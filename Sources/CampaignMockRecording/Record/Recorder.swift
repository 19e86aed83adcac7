package import CampaignMockHTTP
import CampaignMockSupport
package import CampaignMockSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `serve --record DIR`: middleware of the Campaign endpoints (everything outside `/_mock/`) that writes
/// every exchange as a fixture file, numbered in the order the answers were given, before the answer goes
/// out.
package final class Recorder: Middleware {
    private let directory: String
    private let redactor: Redactor?
    private let logger: Logger
    private let sequence = Mutex(0)
    /// The id in `recording.json`: requests replayed from this very recording are not recorded again.
    private let recordingID: String
    /// How many secrets `secrets.json` holds, so it is written again only when one is new.
    private let savedSecrets = Mutex(0)

    /// - Throws: ``ExchangeFileError`` when the directory cannot be made or already holds a recording
    ///   (placeholders are numbered per recording, so two recordings must not mix).
    package init(directory: String, redact: Bool, logger: Logger) throws(ExchangeFileError) {
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        redactor = redact ? Redactor() : nil
        self.logger = logger
        try Self.makeDirectory(self.directory)
        let earlier = ExchangeFiles.list(self.directory)
        guard earlier.isEmpty else {
            throw ExchangeFileError(
                "--record: \(directory) already holds \(earlier.count) exchange file(s); record into an empty directory"
            )
        }
        recordingID = try RecordingDirectory.start(self.directory)
    }

    package func handle(_ request: HTTPRequest, reply: ReplyChannel, next: MiddlewareNext) {
        guard request.headers[RecordingDirectory.replayHeader] != recordingID else {
            return next(request, reply)
        }
        let wallClock = Clock.wallClockMicroseconds()
        next(
            request,
            ReplyChannel { [self] outcome in
                if case .response(let response) = outcome {
                    record(request, response, startedAt: wallClock)
                }
                reply.send(outcome)
            })
    }

    private func record(_ request: HTTPRequest, _ response: HTTPResponse, startedAt: Int64) {
        let duration = Double(Clock.monotonicNanoseconds() - request.receivedAt) / 1_000_000
        // A replay of another recording is recorded as the requests it sends, without the replay's mark.
        var headers = request.headers
        headers.remove(RecordingDirectory.replayHeader)
        var exchange = Exchange(
            sequence: 0, endpoint: Self.endpointName(request),
            recordedAt: RFC3339.string(microsecondsSince1970: startedAt),
            durationMilliseconds: (duration * 1000).rounded() / 1000, redacted: false,
            request: Exchange.Message(
                method: request.method.rawValue, target: request.target, headers: headers, body: request.body),
            response: Exchange.Message(status: response.status.code, headers: response.headers, body: response.body))
        if let redactor {
            exchange = redactor.redact(exchange)
            saveSecrets(redactor)
        }
        sequence.withLock { number in
            number += 1
            exchange.sequence = number
            let path = "\(directory)/\(exchange.fileName)"
            if !FileBytes.writeAtomically(Array(exchange.fileText.utf8), to: path) {
                logger.error("cannot write the recording \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Writes `secrets.json` again when the redactor met a secret a replay needs.
    private func saveSecrets(_ redactor: Redactor) {
        savedSecrets.withLock { saved in
            let secrets = redactor.secrets(ofKinds: RecordingDirectory.replayableKinds)
            guard secrets.count > saved else { return }
            if RecordingDirectory.writeSecrets(secrets, in: directory) {
                saved = secrets.count
            } else {
                logger.error("cannot write \(directory)/secrets.json: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// A short name for the file: `registerIOS`, `tracking`, `soap-Logon`, `wsdl`, `ping`, …
    static func endpointName(_ request: HTTPRequest) -> String {
        let path = request.path
        switch path {
        case "/nms/mobile/1/registerIOS.jssp": return "registerIOS"
        case "/nms/mobile/1/registerAndroid.jssp": return "registerAndroid"
        case "/r/test": return "redirect-test"
        case "/nl/jsp/ping.jsp": return "ping"
        case "/nl/jsp/schemawsdl.jsp": return "wsdl"
        case "/nl/jsp/soaprouter.jsp":
            let action = request.headers[HTTPHeaderName(rawValue: "SOAPAction")]?.split(separator: "#").last
            let method =
                action.map { String($0.filter { $0 != "\"" }) }
                ?? (try? XMLReader.parse(request.body))?.element("Body")?.elements.first?.localName
            return "soap" + (method.map { "-" + sanitized($0) } ?? "")
        default:
            if path == "/r" || path.hasPrefix("/r/") { return "tracking" }
            let last = path.split(separator: "/").last.map(String.init) ?? ""
            return last.isEmpty ? "root" : sanitized(String(last.prefix(40)))
        }
    }

    private static func sanitized(_ text: String) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" })
    }

    private static func makeDirectory(_ path: String) throws(ExchangeFileError) {
        if let failure = FileBytes.makeDirectories(path) { throw ExchangeFileError("--record: \(failure)") }
    }
}

/// The exchange files of a recording directory, in order.
package enum ExchangeFiles {
    /// `*.json` files whose name starts with a number, sorted by name; empty when the directory cannot be read.
    package static func list(_ directory: String) -> [String] {
        FileBytes.names(in: directory).filter { $0.hasSuffix(".json") && $0.first?.isNumber == true }.sorted()
            .map { "\(directory)/\($0)" }
    }
}
