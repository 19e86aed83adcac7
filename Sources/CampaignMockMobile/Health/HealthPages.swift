package import CampaignMockHTTP
import CampaignMockModel
package import CampaignMockRuntime
import CampaignMockSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real server's own health pages (docs/protocol.md §5.7), which monitoring and test harnesses call.
package struct HealthPages: Sendable {
    package init() {}

    /// `GET /nl/jsp/ping.jsp`: `OK`, a newline, a timestamp, a newline.
    package func ping(_ request: HTTPRequest) throws -> EndpointResult {
        try requireGet(request)
        return EndpointResult(response: .text(.ok, "OK\n\(Self.timestamp())\n"))
    }

    /// `GET /r/test`: `<redir status='OK' …/>` as the redirection module answers.
    package func redirectTest(_ request: HTTPRequest) throws -> EndpointResult {
        try requireGet(request)
        let host = request.headers[.host].map { $0.split(separator: ":").first.map(String.init) ?? $0 } ?? "localhost"
        let body =
            "<redir status='OK' date='\(Self.timestamp())' build='campaign-mock-\(CampaignMockVersion.current)' "
            + "host='\(Self.escaped(host))' localHost='\(Self.escaped(Self.hostname))'/>\n"
        return EndpointResult(response: .content(.ok, type: "text/xml; charset=utf-8", Array(body.utf8)))
    }

    private func requireGet(_ request: HTTPRequest) throws {
        guard request.method == .get || request.method == .head else {
            throw HTTPError(.methodNotAllowed, "\(request.path) takes GET", headers: [.allow: "GET, HEAD"])
        }
    }

    /// `2021-08-27 15:43:48.862Z`, the form of the real pages.
    private static func timestamp() -> String {
        RFC3339.string(microsecondsSince1970: Clock.wallClockMicroseconds()).replacingFirstT()
    }

    private static let hostname: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "'": result += "&apos;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }
}

extension String {
    fileprivate func replacingFirstT() -> String {
        guard let index = firstIndex(of: "T") else { return self }
        var copy = self
        copy.replaceSubrange(index...index, with: " ")
        return copy
    }
}
