package import CampaignMock
import CampaignMockHTTP
import CampaignMockNetwork
package import CampaignMockSystem
package import CampaignMockTestSupport
import Foundation

/// A CampaignMockApp built exactly as the CLI builds it, and a way to send it requests as URLSession does.
/// ``InProcessServer`` hands each request to the app and opens no socket; ``LiveServer`` runs the app behind
/// its listener on 127.0.0.1:0 and sends over a socket. The helpers of the endpoint and admin tests are
/// written against this protocol, so a test chooses one by its type name.
package protocol TestServer: AnyObject {
    /// What answers: the store, the registries, the router.
    var app: CampaignMockApp { get }
    /// The port the app is reached at: the listener's, or the one an in-process app is given.
    var port: UInt16 { get }
    /// The folder of the data directory; nil in memory.
    var directory: TemporaryDirectory? { get }

    init(inMemory: Bool, directory: TemporaryDirectory?, logger: Logger, _ adjust: (inout Configuration) -> Void)
        throws

    /// Sends one request and returns what URLSession gives back: the status, the headers (names in
    /// lowercase) and the body as text.
    func send(_ method: String, _ path: String, body: String?, headers: [String: String]) throws
        -> (status: Int, headers: [String: String], body: String)
}

extension TestServer {
    /// Sends a request and returns status, headers and body; to `/_mock/`, with `Campaign-Mock-Client` as the
    /// clients send it (the routes that run a tool want it) unless `headers` name it. The SDK endpoints get
    /// the headers as given: the journal keeps them as they came.
    package func request(_ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]) throws
        -> (status: Int, headers: [String: String], body: String)
    {
        let client = path.hasPrefix("/_mock/") ? ["Campaign-Mock-Client": "test"] : [:]
        return try send(method, path, body: body, headers: client.merging(headers) { $1 })
    }

    /// Decodes a JSON response body.
    package func json(_ method: String, _ path: String, body: String? = nil) throws -> (
        status: Int, object: [String: Any]
    ) {
        let response = try request(method, path, body: body)
        let object = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
        return (response.status, object ?? [:])
    }

    /// The configuration both kinds run: 127.0.0.1, port `port`, in memory or in a data directory of its own
    /// (or `directory`), then `adjust`ed.
    package static func configuration(
        port: UInt16, inMemory: Bool, directory: TemporaryDirectory?, _ adjust: (inout Configuration) -> Void
    ) -> (configuration: Configuration, directory: TemporaryDirectory?) {
        var configuration = Configuration()
        configuration.http.address = SocketAddress(host: "127.0.0.1", port: port, family: .ipv4)
        configuration.inMemory = inMemory
        let dataDirectory = inMemory ? nil : (directory ?? TemporaryDirectory())
        if let dataDirectory { configuration.dataDirectory = dataDirectory.path + "/data" }
        // No test runs this machine's xcrun or adb: those that need them name a folder of fakes.
        configuration.toolEnvironment = [:]
        adjust(&configuration)
        return (configuration, dataDirectory)
    }
}
