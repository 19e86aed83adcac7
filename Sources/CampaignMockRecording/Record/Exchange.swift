import CampaignMockHTTP
import CampaignMockSupport
import CampaignMockSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One recorded request and its answer: the content of a fixture file (`serve --record`, `replay`).
///
/// The file is JSON with sorted keys and two-space indents, so recordings diff well. `body` is what was
/// sent, byte for byte (`bodyBase64` instead when it is not UTF-8); `form` and `xml` show a form or XML
/// body decoded, for people: replay sends `body` and ignores them.
package struct Exchange: Sendable, Codable, Equatable {
    package struct Message: Sendable, Codable, Equatable {
        /// Request only.
        package var method: String?
        package var target: String?
        /// Response only.
        package var status: Int?
        /// In the order sent, as `Name: value`; per-connection fields (`Content-Length`, `Date`,
        /// `Connection`, `Server`, `Transfer-Encoding`, …, see `HTTPHeaderName.isPerConnection`) left out.
        package var headers: [String]
        package var body: String?
        package var bodyBase64: String?
        /// A form body's fields, decoded, as `name=value`.
        package var form: [String]?
        /// An XML body, indented.
        package var xml: String?

        /// The body's bytes.
        package var bodyBytes: [UInt8] {
            if let body { return Array(body.utf8) }
            return bodyBase64.flatMap { Base64.decode($0) } ?? []
        }

        /// The headers as (name, value).
        package var headerPairs: [(name: String, value: String)] {
            headers.map { line in
                guard let colon = line.firstIndex(of: ":") else { return (line, "") }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingASCIISpaces())
            }
        }

        /// The first value of the header `name` (any case).
        package func header(_ name: String) -> String? {
            headerPairs.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    package var format = "campaign-mock-exchange"
    package var version = 1
    /// 1, 2, … in the order the answers were given.
    package var sequence: Int
    /// What was called: `registerIOS`, `tracking`, `soap-Logon`, … (also in the file name).
    package var endpoint: String
    package var recordedAt: String
    package var durationMilliseconds: Double
    /// Whether secrets were replaced by placeholders (`redacted-<kind>-<n>`).
    package var redacted: Bool
    package var request: Message
    package var response: Message

    /// `0001-registerIOS-200.json`.
    package var fileName: String {
        let number = String(sequence)
        let padded = String(repeating: "0", count: max(0, 4 - number.count)) + number
        return "\(padded)-\(endpoint)-\(response.status ?? 0).json"
    }

    /// The file's text.
    package var fileText: String { JSONText.pretty(self) }

    /// Reads a fixture file.
    ///
    /// - Throws: ``ExchangeFileError`` naming the file and what is wrong.
    package static func read(path: String) throws(ExchangeFileError) -> Exchange {
        guard let bytes = FileBytes.read(path) else { throw ExchangeFileError("\(path): cannot read the file") }
        let exchange: Exchange
        do {
            exchange = try JSONDecoder().decode(Exchange.self, from: Data(bytes))
        } catch {
            throw ExchangeFileError("\(path): not a campaign-mock exchange file (\(error))")
        }
        guard exchange.format == "campaign-mock-exchange", exchange.version == 1 else {
            throw ExchangeFileError("\(path): format '\(exchange.format)' version \(exchange.version) is not supported")
        }
        guard exchange.request.method != nil, exchange.request.target != nil, exchange.response.status != nil else {
            throw ExchangeFileError("\(path): the request needs a method and a target, the response a status")
        }
        return exchange
    }
}

/// A fixture file that cannot be used.
package struct ExchangeFileError: Error, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

extension Exchange.Message {
    /// A message with `body` as text (or base64), and the decoded views of form and XML bodies.
    init(method: String? = nil, target: String? = nil, status: Int? = nil, headers: HTTPHeaders, body: [UInt8]) {
        self.method = method
        self.target = target
        self.status = status
        self.headers = headers.filter { !$0.name.isPerConnection }.map {
            "\($0.name.rawValue): \($0.value)"
        }
        setBody(body)
    }

    /// Replaces the body (and its decoded views).
    mutating func setBody(_ bytes: [UInt8]) {
        body = nil
        bodyBase64 = nil
        form = nil
        xml = nil
        guard !bytes.isEmpty else { return }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            bodyBase64 = Base64.encode(bytes)
            return
        }
        body = text
        let type = (header("Content-Type") ?? "").lowercased()
        if type.hasPrefix("application/x-www-form-urlencoded") {
            form = PercentEncoding.queryItems(text)?.map { "\($0.name)=\($0.value)" }
        } else if type.contains("xml") || text.hasPrefix("<") {
            xml = (try? XMLReader.parse(bytes)).map { XMLOutput.indented($0) }
        }
    }
}
