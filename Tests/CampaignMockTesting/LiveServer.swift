package import CampaignMock
import CampaignMockHTTP
package import CampaignMockSystem
package import CampaignMockTestSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A running CampaignMockServer on 127.0.0.1:0 whose requests go over a real socket with URLSession: for the
/// tests whose point is the wire (the listener, TLS, hostile clients, load, streams, long polls, Host headers
/// as sent). The others use ``InProcessServer``.
package final class LiveServer: TestServer {
    package let server: CampaignMockServer
    package let directory: TemporaryDirectory?
    package var app: CampaignMockApp { server.app }
    package var port: UInt16 { server.localAddress.port }

    package init(
        inMemory: Bool = false, directory: TemporaryDirectory? = nil, logger: Logger = .silent,
        _ adjust: (inout Configuration) -> Void = { _ in }
    ) throws {
        let (configuration, directory) = Self.configuration(
            port: 0, inMemory: inMemory, directory: directory, adjust)
        server = try CampaignMockServer(configuration: configuration, logger: logger)
        self.directory = directory
    }

    deinit {
        server.shutdown()
    }

    /// Sends a request with URLSession and returns status, headers and body.
    package func send(_ method: String, _ path: String, body: String?, headers: [String: String]) throws
        -> (status: Int, headers: [String: String], body: String)
    {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let box = ResponseBox()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            box.set(data, response as? HTTPURLResponse, error)
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + 10) == .success else { throw RawClientError("request timed out") }
        return try box.result()
    }
}

private final class ResponseBox: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    private var response: HTTPURLResponse?
    private var error: (any Error)?

    func set(_ data: Data?, _ response: HTTPURLResponse?, _ error: (any Error)?) {
        lock.withLock { (self.data, self.response, self.error) = (data, response, error) }
    }

    func result() throws -> (status: Int, headers: [String: String], body: String) {
        try lock.withLock {
            if let error { throw error }
            guard let response else { throw RawClientError("no response") }
            var headers: [String: String] = [:]
            for (key, value) in response.allHeaderFields {
                headers[String(describing: key).lowercased()] = String(describing: value)
            }
            return (response.statusCode, headers, String(decoding: data ?? Data(), as: UTF8.self))
        }
    }
}
