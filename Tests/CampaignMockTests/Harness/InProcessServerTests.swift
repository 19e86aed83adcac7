import CampaignMockHTTP
import CampaignMockNetwork
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockModel
@testable import CampaignMockRecording
@testable import CampaignMockStorage

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The in-process harness stands for URLSession over a socket: the same requests reach the server, and the
/// tests read the same answers. Each check sends the same requests to a ``LiveServer`` and an
/// ``InProcessServer`` and compares.
@Suite("in-process harness against URLSession", .timeLimit(.minutes(2)))
struct InProcessServerTests {
    struct Exchange: Sendable, CustomTestStringConvertible {
        var method: String
        var path: String
        var body: String?
        var headers: [String: String] = [:]
        var testDescription: String { "\(method) \(path)" }
    }

    /// What the endpoint and admin tests send, answers that do not change from one server to another.
    static let exchanges: [Exchange] = [
        Exchange(
            method: "POST", path: "/nms/mobile/1/registerIOS.jssp", body: SDKBodies.iOS,
            headers: ["Content-Type": SDKBodies.contentType]),
        Exchange(method: "POST", path: "/nms/mobile/1/registerAndroid.jssp", body: "registrationToken=t"),
        Exchange(method: "GET", path: "/nms/mobile/1/registerIOS.jssp"),
        Exchange(method: "GET", path: "/r/?id=h3039,d,1", headers: ["User-Agent": "AEPCampaignClassic/5.0"]),
        Exchange(method: "HEAD", path: "/r/?id=h3039,d,2"),
        Exchange(method: "POST", path: "/nowhere?x=%20y", body: ""),
        Exchange(method: "GET", path: "/r/test"),
        Exchange(method: "GET", path: "/nl/jsp/ping.jsp"),
        Exchange(method: "GET", path: "/"),
        Exchange(method: "GET", path: "/_mock/apps"),
        Exchange(method: "POST", path: "/_mock/faults", body: #"{"endpoint":"soap","status":500,"id":"x"}"#),
        Exchange(method: "POST", path: "/_mock/faults", body: "{nope"),
        Exchange(method: "DELETE", path: "/_mock/faults/x"),
        Exchange(method: "PUT", path: "/_mock/health"),
        Exchange(method: "GET", path: "/_mock/nothing"),
        Exchange(method: "POST", path: "/_mock/reset?only=faults"),
        Exchange(method: "GET", path: "/_mock/devices/70757368546f6b656e?app=integrationKey"),
        Exchange(
            method: "POST", path: "/nms/mobile/1/registerIOS.jssp", body: String(repeating: "a", count: 3000),
            headers: ["Content-Type": SDKBodies.contentType]),
    ]

    /// Two servers alike: the SDK applications, a small body limit for the 413.
    private static func servers() throws -> (LiveServer, InProcessServer) {
        let adjust: (inout Configuration) -> Void = { $0.http.limits.bodyBytes = 2048 }
        return (try LiveServer.withSDKApplications(adjust), try InProcessServer.withSDKApplications(adjust))
    }

    /// Headers whose values differ between two servers or two seconds.
    /// The headers both URLSessions report alike: not the date, nor `Transfer-Encoding`, which Linux's
    /// URLSession passes on as the server sent it (`chunked`) and macOS's reports as it decoded it
    /// (`Identity`); a streamed body is compared whole instead.
    private static func comparable(_ headers: [String: String]) -> [String: String] {
        headers.filter { $0.key != "date" && $0.key != "transfer-encoding" }
    }

    /// A body with its server's port and its times (ISO 8601) masked.
    private static func comparable(_ body: String, port: UInt16) -> String {
        body.replacingOccurrences(of: String(port), with: "PORT").replacingOccurrences(
            of: #"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?Z"#, with: "TIME", options: .regularExpression)
    }

    #if os(Linux)
        static let isLinux = true
    #else
        static let isLinux = false
    #endif

    @Test func theTestsReadTheSameAnswers() throws {
        let (live, local) = try Self.servers()
        for exchange in Self.exchanges {
            let overSocket = try live.request(
                exchange.method, exchange.path, body: exchange.body, headers: exchange.headers)
            let inProcess = try local.request(
                exchange.method, exchange.path, body: exchange.body, headers: exchange.headers)
            let what = exchange.testDescription
            #expect(inProcess.status == overSocket.status, "\(what)")
            #expect(Self.comparable(inProcess.headers) == Self.comparable(overSocket.headers), "\(what)")
            #expect(inProcess.headers["date"] != nil, "\(what)")
            #expect(
                Self.comparable(inProcess.body, port: local.port) == Self.comparable(overSocket.body, port: live.port),
                "\(what)")
        }
    }

    /// Nothing listens: the port an in-process app is given and answers for stays free to bind.
    @Test func theInProcessAppOpensNoSocket() throws {
        let loopback = SocketAddress(host: "127.0.0.1", port: 0, family: .ipv4)
        let probe = try Socket.listen(on: loopback, backlog: 1)
        let port = try probe.localAddress().port
        probe.close()
        let local = try InProcessServer(port: port, inMemory: true)
        #expect(try local.request("GET", "/_mock/ready").status == 200)
        #expect(try local.json("GET", "/_mock/info").object["baseURL"] as? String == "http://127.0.0.1:\(port)")
        let again = try Socket.listen(
            on: SocketAddress(host: "127.0.0.1", port: port, family: .ipv4), backlog: 1)
        again.close()
    }

    /// The journal keeps a Campaign request's headers as they arrived: URLSession's and the harness's are
    /// the same, but for the User-Agent's product and the port in Host.
    /// The harness writes the headers and the errors of Linux's URLSession (libcurl), which this machine
    /// checked; macOS's URLSession sends other headers and reports a dropped connection otherwise.
    @Test(.enabled(if: Self.isLinux, "the harness imitates Linux's URLSession"))
    func theServerSeesTheSameRequests() throws {
        let (live, local) = try Self.servers()
        for exchange in Self.exchanges where !exchange.path.hasPrefix("/_mock") {
            _ = try live.request(exchange.method, exchange.path, body: exchange.body, headers: exchange.headers)
            _ = try local.request(exchange.method, exchange.path, body: exchange.body, headers: exchange.headers)
        }
        func journal(_ server: some TestServer) throws -> [[String]] {
            try server.app.store.read { try $0.journalPage(after: 0, limit: 100).requests }.map { entry in
                let headers = entry.headers.map { header in
                    switch header.first?.lowercased() {
                    case "user-agent": [header[0], "(the client)"]
                    case "host": [header[0], "127.0.0.1:PORT"]
                    default: header
                    }
                }
                let remote = entry.remoteAddress?.hasPrefix("127.0.0.1:") == true ? "loopback" : entry.remoteAddress
                return [entry.method, entry.target, entry.body, String(entry.status), "\(headers)", remote ?? "none"]
            }
        }
        let overSocket = try journal(live)
        let inProcess = try journal(local)
        #expect(overSocket.count == 8, "\(overSocket)")
        #expect(inProcess.count == overSocket.count)
        for (one, other) in zip(inProcess, overSocket) { #expect(one == other) }
    }

    /// A fault that drops or resets the connection: URLSession throws, and so does the harness, alike.
    @Test(.enabled(if: Self.isLinux, "the harness imitates Linux's URLSession"), arguments: ["drop", "reset"])
    func aDroppedOrResetConnectionThrowsURLSessionsError(_ action: String) throws {
        let (live, local) = try Self.servers()
        func error(_ server: some TestServer) throws -> URLError.Code? {
            _ = try server.addFault(#"{"endpoint":"tracking","\#(action)":true}"#)
            do {
                _ = try server.request("GET", "/r/?id=h1,d,1")
                return nil
            } catch let error as URLError {
                return error.code
            }
        }
        let overSocket = try error(live)
        #expect(overSocket == (action == "drop" ? .badServerResponse : .networkConnectionLost))
        #expect(try error(local) == overSocket)
    }

    /// `GET /_mock/state` is streamed (chunked): the harness collects the whole download.
    @Test func aStreamedDownloadArrivesWhole() throws {
        let (live, local) = try Self.servers()
        for server in [live, local] as [any TestServer] {
            #expect(try server.register(.ios, SDKBodies.iOS).status == 200)
        }
        let overSocket = try live.request("GET", "/_mock/state")
        let inProcess = try local.request("GET", "/_mock/state")
        #expect(inProcess.status == 200)
        #expect(Self.comparable(inProcess.headers) == Self.comparable(overSocket.headers))
        func devices(_ body: String) throws -> [String] {
            let document = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            return (document?["devices"] as? [[String: Any]])?.compactMap { $0["registrationToken"] as? String } ?? []
        }
        #expect(try devices(inProcess.body) == ["70757368546f6b656e"])
        #expect(try devices(inProcess.body) == (try devices(overSocket.body)))
    }

    @Test func aGETWithABodyIsRefusedBeforeItIsSent() throws {
        let local = try InProcessServer(inMemory: true)
        #expect(throws: URLError.self) { try local.request("GET", "/_mock/apps", body: "x") }
        #expect(try local.json("GET", "/_mock/requests").object["total"] as? Int == 0)
    }
}
