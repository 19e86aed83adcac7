import ArgumentParser
import CampaignMockHTTP
import CampaignMockModel
import CampaignMockNetwork

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How a client command (`push`, `tail`) reaches a running server: the same two flags, with the same
/// environment variables, for every command.
struct ServerOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The server's plain HTTP address [env: CAMPAIGN_MOCK_SERVER] (default http://127.0.0.1:8080, or the port "
                + "of CAMPAIGN_MOCK_PORT)."))
    var server: String?
    @Option(name: .customLong("admin-token"), help: "The server's admin token [env: CAMPAIGN_MOCK_ADMIN_TOKEN].")
    var adminToken: String?

    /// The server to call; a bad address is a usage error naming `flag`.
    func endpoint(flag: String = "--server") throws(CommandFailure) -> HTTPClient.Endpoint {
        let environment = ProcessInfo.processInfo.environment
        let url =
            server ?? environment["CAMPAIGN_MOCK_SERVER"]
            ?? "http://127.0.0.1:\(environment["CAMPAIGN_MOCK_PORT"].flatMap { UInt16($0) } ?? 8080)"
        do {
            return try HTTPClient.Endpoint(url: url)
        } catch {
            throw CommandFailure(message: "error: \(flag): \(error.message)", code: 2)
        }
    }

    /// `headers` with the admin token's `Authorization`, when there is a token, and `Campaign-Mock-Client`
    /// (which the routes that run xcrun or adb want: a web page cannot send it).
    func authorized(_ headers: HTTPHeaders = HTTPHeaders()) -> HTTPHeaders {
        var headers = headers
        headers.append(HTTPHeaderName(rawValue: "Campaign-Mock-Client"), "cli")
        if let token = adminToken ?? ProcessInfo.processInfo.environment["CAMPAIGN_MOCK_ADMIN_TOKEN"] {
            headers.append(.authorization, "Bearer \(token)")
        }
        return headers
    }
}

extension HTTPClient.Response {
    /// Why the server refused: its `{"error": …}` answer, or the body as text.
    var refusalReason: String {
        (try? JSONDecoder().decode(ErrorAnswer.self, from: Data(body)))?.error ?? text
    }
}
