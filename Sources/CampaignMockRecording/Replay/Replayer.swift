import CampaignMockHTTP
package import CampaignMockNetwork
import CampaignMockSupport

/// `campaign-mock replay`: sends recorded requests, in order, to a server and compares its answers with
/// the recorded ones.
package struct Replayer {
    /// The outcome of one exchange.
    package struct Result: Sendable {
        package var file: String
        package var requestLine: String
        /// Empty when the answer matched.
        package var differences: [String]
        package var passed: Bool { differences.isEmpty }
    }

    package var target: HTTPClient.Endpoint
    package var bindings: Bindings
    /// Response headers not compared (any case).
    package var ignoredHeaders: Set<String>
    package var tls: TLSClientContext?
    package var timeoutSeconds = 30
    /// The id of the recording being replayed, sent in `X-Campaign-Mock-Replay` so a server recording
    /// into that same directory does not record its own replay.
    package var recordingID: String?

    package init(target: HTTPClient.Endpoint, bindings: Bindings, ignoredHeaders: [String], tls: TLSClientContext?) {
        self.target = target
        self.bindings = bindings
        self.ignoredHeaders = Set(ignoredHeaders.map { $0.lowercased() })
        self.tls = tls
    }

    /// Replays one exchange; what it learns (session tokens, placeholders) serves the next ones.
    package mutating func replay(_ exchange: Exchange, file: String) -> Result {
        let method = HTTPMethod(rawValue: exchange.request.method ?? "GET")
        let target = bindings.substitute(exchange.request.target ?? "/", spell: PercentEncoding.encodeComponent)
        var headers = HTTPHeaders()
        for (name, value) in exchange.request.headerPairs
        where !HTTPHeaderName(rawValue: name).isPerConnection {
            headers.append(HTTPHeaderName(rawValue: name), bindings.substitute(value))
        }
        if let recordingID { headers.set(RecordingDirectory.replayHeader, recordingID) }
        var body = exchange.request.bodyBytes
        if let text = exchange.request.body {
            body = Array(bindings.substitute(text, spell: { Self.spelled($0, in: exchange.request) }).utf8)
        }
        let line = "\(method.rawValue) \(exchange.request.target ?? "/")"
        let unfilled = Set(bindings.unfilled(in: target) + bindings.unfilled(in: String(decoding: body, as: UTF8.self)))
        let hint =
            unfilled.isEmpty
            ? []
            : [
                "sent unfilled placeholders: "
                    + unfilled.sorted().map { "\($0) (--secret \($0.dropFirst("redacted-".count))=VALUE)" }
                    .joined(separator: ", ")
            ]
        let answer: HTTPClient.Response
        do {
            answer = try HTTPClient.send(
                method, target, to: self.target, headers: headers, body: body, timeoutSeconds: timeoutSeconds, tls: tls)
        } catch {
            return Result(file: file, requestLine: line, differences: ["no answer: \(error.message)"] + hint)
        }
        var comparison = ExchangeComparison(bindings: bindings, ignoredHeaders: ignoredHeaders)
        comparison.compare(exchange.response, status: answer.status, headers: answer.headers, body: answer.body)
        bindings = comparison.bindings
        let differences = comparison.differences
        return Result(file: file, requestLine: line, differences: differences.isEmpty ? [] : differences + hint)
    }

    /// A value as the body it goes into writes it.
    private static func spelled(_ value: String, in message: Exchange.Message) -> String {
        if message.form != nil { return PercentEncoding.encodeComponent(value) }
        if message.xml != nil { return XMLOutput.escape(value) }
        return value
    }

    /// The report of one exchange: `PASS file  request`, or `FAIL …` and an indented line per difference.
    package static func report(_ result: Result) -> String {
        let name = result.file.split(separator: "/").last.map(String.init) ?? result.file
        var lines = ["\(result.passed ? "PASS" : "FAIL") \(name)  \(result.requestLine)"]
        lines += result.differences.map { "    " + $0 }
        return lines.joined(separator: "\n")
    }
}
