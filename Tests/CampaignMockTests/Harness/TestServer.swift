import CampaignMockHTTP
import CampaignMockNetwork
import CampaignMockSystem
import CampaignMockTestSupport
import Foundation

@testable import CampaignMock

/// A CampaignMockServer on 127.0.0.1:0, built exactly as the CLI builds it, and a way to send it requests
/// as URLSession does. ``InProcessServer`` hands each request to the server's router; ``LiveServer`` sends
/// it over a socket. The helpers of the endpoint and admin tests are written against this protocol, so a
/// test chooses one by its type name.
protocol TestServer: AnyObject {
    var server: CampaignMockServer { get }
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
    /// The port the server listens on.
    var port: UInt16 { server.localAddress.port }

    /// Sends a request and returns status, headers and body.
    func request(_ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]) throws
        -> (status: Int, headers: [String: String], body: String)
    {
        try send(method, path, body: body, headers: headers)
    }

    /// Decodes a JSON response body.
    func json(_ method: String, _ path: String, body: String? = nil) throws -> (status: Int, object: [String: Any]) {
        let response = try request(method, path, body: body)
        let object = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
        return (response.status, object ?? [:])
    }

    /// The server both kinds run: 127.0.0.1:0, in memory or in a data directory of its own (or `directory`).
    static func makeServer(
        inMemory: Bool, directory: TemporaryDirectory?, logger: Logger, _ adjust: (inout Configuration) -> Void
    ) throws -> (server: CampaignMockServer, directory: TemporaryDirectory?) {
        var configuration = Configuration()
        configuration.http.address = SocketAddress(host: "127.0.0.1", port: 0, family: .ipv4)
        configuration.inMemory = inMemory
        let dataDirectory = inMemory ? nil : (directory ?? TemporaryDirectory())
        if let dataDirectory { configuration.dataDirectory = dataDirectory.path + "/data" }
        // No test runs this machine's xcrun or adb: those that need them name a folder of fakes.
        configuration.toolEnvironment = [:]
        adjust(&configuration)
        return (try CampaignMockServer(configuration: configuration, logger: logger), dataDirectory)
    }
}
