import CampaignMockTestSupport
import Dispatch
import Foundation
import Testing

@testable import CampaignMockHTTP
@testable import CampaignMockNetwork

/// A handler with one behaviour per path, for exercising the transport.
private struct ScriptedHandler: HTTPHandler {
    func handle(_ request: HTTPRequest, reply: ReplyChannel) {
        switch request.path {
        case "/later":
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
                reply.send(.text(.ok, "later"))
            }
        case "/slow":
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(400)) {
                reply.send(.text(.ok, "slow"))
            }
        case "/held":
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(2500)) {
                reply.send(.text(.ok, "held"))
            }
        case "/drop":
            reply.send(.drop)
        case "/reset":
            reply.send(.reset)
        case "/forget":
            break
        case "/close":
            reply.send(HTTPResponse(status: .ok, headers: [.connection: "close"], body: Array("bye".utf8)))
        default:
            reply.send(.text(.ok, "\(request.method) \(request.target) \(request.bodyText)"))
        }
    }
}

/// A server on a free port, its loops waiting in `poller`: every test runs with each mechanism this system
/// has, so Linux runs the `poll(2)` loop macOS runs, as well as its own epoll one.
private func startServer(
    _ poller: Poller.Mechanism, _ adjust: (inout HTTPServerConfiguration) -> Void = { _ in }
) throws -> HTTPServer {
    var configuration = HTTPServerConfiguration(address: try SocketAddress(parsing: "127.0.0.1", port: 0))
    configuration.poller = poller
    adjust(&configuration)
    return try HTTPServer(configuration: configuration, handler: ScriptedHandler())
}

private func get(_ path: String, close: Bool = false) -> String {
    "GET \(path) HTTP/1.1\r\nHost: test\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n"
}

@Suite("HTTP server on real sockets", .timeLimit(.minutes(2)))
struct HTTPServerTests {
    @Test(arguments: Poller.Mechanism.allCases)
    func answersPipelinedRequestsInOrder(_ poller: Poller.Mechanism) throws {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        let paths = ["/a", "/later", "/b", "/later", "/c"]
        try client.send(paths.map { get($0) }.joined())
        let bodies = try paths.map { _ in try client.readResponse().text }
        #expect(bodies == ["GET /a ", "later", "GET /b ", "later", "GET /c "])
    }

    /// Answers given while the handler runs are written without the mailbox; two thousand pipelined in
    /// one write all come back, in order, with a delayed one among them.
    @Test(arguments: Poller.Mechanism.allCases)
    func answersManyPipelinedImmediateRequestsInOrder(_ poller: Poller.Mechanism) throws {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        let paths = (0..<2000).map { $0 == 1000 ? "/later" : "/n\($0)" }
        try client.send(paths.map { get($0) }.joined())
        let bodies = try paths.map { _ in try client.readResponse().text }
        #expect(bodies == paths.map { $0 == "/later" ? "later" : "GET \($0) " })
    }

    @Test(
        "malformed request gets its status, the connection closes, the server stays up",
        arguments: Poller.Mechanism.allCases, MalformedRequest.examples)
    func rejectsMalformedRequestAndStaysUp(_ poller: Poller.Mechanism, _ example: MalformedRequest) throws {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let bad = try RawHTTPClient(port: server.localAddress.port)
        try bad.send(example.text)
        let response = try bad.readResponse()
        #expect(response.status == example.status)
        #expect(response.header("Connection") == "close")
        #expect(!response.text.isEmpty)
        #expect(bad.isClosedByServer())

        let good = try RawHTTPClient(port: server.localAddress.port)
        try good.send(get("/after"))
        #expect(try good.readResponse().text == "GET /after ")
    }

    @Test(arguments: Poller.Mechanism.allCases)
    func answersGarbageAfterAGoodPipelinedRequestAndCloses(_ poller: Poller.Mechanism) throws {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send(get("/first") + "\u{1}\u{2}garbage\r\n\r\n")
        #expect(try client.readResponse().text == "GET /first ")
        #expect(try client.readResponse().status == 400)
        #expect(client.isClosedByServer())
    }

    @Test(arguments: Poller.Mechanism.allCases)
    func sendsContinueThenReadsBody(_ poller: Poller.Mechanism) throws {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send("POST /upload HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        #expect(try client.readResponse().status == 100)
        try client.send("hello")
        #expect(try client.readResponse().text == "POST /upload hello")
    }

    @Test(arguments: Poller.Mechanism.allCases) func refusesOversizedBodyBeforeItIsSent(_ poller: Poller.Mechanism)
        throws
    {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send("POST /upload HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 104857600\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(response.text.contains("larger than"))
    }

    @Test(arguments: Poller.Mechanism.allCases)
    func decodesChunkedRequestBody(_ poller: Poller.Mechanism) throws {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send(
            "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n")
        #expect(try client.readResponse().text == "POST /c Wikipedia")
    }

    @Test(arguments: Poller.Mechanism.allCases)
    func answersHeadWithHeadersOnly(_ poller: Poller.Mechanism) throws {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send("HEAD /h HTTP/1.1\r\nHost: a\r\n\r\n" + get("/next"))
        let head = try client.readResponse(head: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == String("HEAD /h ".utf8.count))
        #expect(head.body.isEmpty)
        #expect(try client.readResponse().text == "GET /next ")
    }

    @Test(arguments: Poller.Mechanism.allCases) func everyResponseCarriesDateServerAndLength(_ poller: Poller.Mechanism)
        throws
    {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send(get("/x"))
        let response = try client.readResponse()
        #expect(response.header("Date")?.hasSuffix(" GMT") == true)
        #expect(response.header("Server") == "campaign-mock")
        #expect(response.header("Content-Length") == "7")
    }

    @Test(arguments: Poller.Mechanism.allCases) func closesAfterHTTP10AndConnectionClose(_ poller: Poller.Mechanism)
        throws
    {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let old = try RawHTTPClient(port: server.localAddress.port)
        try old.send("GET /old HTTP/1.0\r\n\r\n")
        #expect(try old.readResponse().header("Connection") == "close")
        #expect(old.isClosedByServer())

        let closing = try RawHTTPClient(port: server.localAddress.port)
        try closing.send(get("/bye", close: true))
        #expect(try closing.readResponse().status == 200)
        #expect(closing.isClosedByServer())

        let handlerClose = try RawHTTPClient(port: server.localAddress.port)
        try handlerClose.send(get("/close"))
        #expect(try handlerClose.readResponse().text == "bye")
        #expect(handlerClose.isClosedByServer())
    }

    /// RFC 9112 §9.3: an HTTP/1.0 client asking for keep-alive keeps the connection only when the answer
    /// says so; without the header, `ab -k` waited for a close that never came.
    @Test(arguments: Poller.Mechanism.allCases)
    func announcesKeepAliveToAnHTTP10ClientThatAskedForIt(_ poller: Poller.Mechanism) throws {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port, timeoutSeconds: 3)
        for path in ["/one", "/two"] {
            try client.send("GET \(path) HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.header("Connection") == "keep-alive")
        }
        // HTTP/1.1 keeps alive by default and says nothing.
        let modern = try RawHTTPClient(port: server.localAddress.port)
        try modern.send(get("/three"))
        #expect(try modern.readResponse().header("Connection") == nil)
    }

    @Test(arguments: Poller.Mechanism.allCases)
    func answersAClientThatHalfClosedAfterItsRequest(_ poller: Poller.Mechanism) throws {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send(get("/later"))
        client.shutdownWrite()
        #expect(try client.readResponse().text == "later")
        #expect(client.isClosedByServer())
    }

    /// The connection keeps reading while a request is with the handler: what the client sends meanwhile
    /// waits in the parser and is answered after, in order.
    @Test(arguments: Poller.Mechanism.allCases) func readsAheadWhileARequestIsWithTheHandler(_ poller: Poller.Mechanism)
        throws
    {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send(get("/slow"))
        Thread.sleep(forTimeInterval: 0.1)
        try client.send(get("/second") + get("/third"))
        client.shutdownWrite()
        let bodies = try (0..<3).map { _ in try client.readResponse().text }
        #expect(bodies == ["slow", "GET /second ", "GET /third "])
        #expect(client.isClosedByServer())
    }

    /// What a client sends while its request is with the handler is read ahead up to
    /// `Connection.readAheadLimit`, then left in the kernel's buffers: a client pipelining without end
    /// behind an unanswered request costs the server no more memory than that.
    @Test(arguments: Poller.Mechanism.allCases)
    func stopsReadingAheadPastItsLimit(_ poller: Poller.Mechanism) throws {
        let server = try startServer(poller)
        defer { server.shutdown() }
        // Answered after 2.5 s; the flood gives up once a write has made no progress for 0.5 s, before that.
        let client = try RawHTTPClient(port: server.localAddress.port, timeoutSeconds: 0.5)
        try client.send(get("/held"))
        let flood = [UInt8](repeating: UInt8(ascii: "a"), count: 64 << 20)
        let taken = client.sendUntilBlocked(flood)
        // Loopback socket buffers hold a few megabytes; the server reading all of it would take 64 MB.
        #expect(taken > 0)
        #expect(taken < 24 << 20)
    }

    @Test(arguments: Poller.Mechanism.allCases)
    func timesOutAnIncompleteHeadWith408(_ poller: Poller.Mechanism) throws {
        let server = try startServer(poller) { $0.headerTimeoutMilliseconds = 200 }
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send("GET / HTTP/1.1\r\nHo")
        let response = try client.readResponse()
        #expect(response.status == 408)
        #expect(client.isClosedByServer())
    }

    @Test(arguments: Poller.Mechanism.allCases)
    func timesOutAnIncompleteBodyWith408(_ poller: Poller.Mechanism) throws {
        let server = try startServer(poller) { $0.bodyTimeoutMilliseconds = 200 }
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
        #expect(try client.readResponse().status == 408)
    }

    @Test(arguments: Poller.Mechanism.allCases)
    func closesIdleKeepAliveConnections(_ poller: Poller.Mechanism) throws {
        let server = try startServer(poller) { $0.idleTimeoutMilliseconds = 200 }
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send(get("/x"))
        _ = try client.readResponse()
        #expect(try client.readUntilClosed().isEmpty)
    }

    @Test(arguments: Poller.Mechanism.allCases) func refusesConnectionsBeyondTheLimitWith503(_ poller: Poller.Mechanism)
        throws
    {
        let server = try startServer(poller) { $0.maxConnections = 2 }
        defer { server.shutdown() }
        let first = try RawHTTPClient(port: server.localAddress.port)
        let second = try RawHTTPClient(port: server.localAddress.port)
        try first.send(get("/1"))
        try second.send(get("/2"))
        _ = try first.readResponse()
        _ = try second.readResponse()
        let third = try RawHTTPClient(port: server.localAddress.port)
        let refused = try third.readResponse()
        #expect(refused.status == 503)
        #expect(refused.text.contains("too many"))
    }

    @Test(arguments: Poller.Mechanism.allCases) func dropsAndResetsConnectionsOnRequest(_ poller: Poller.Mechanism)
        throws
    {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let dropped = try RawHTTPClient(port: server.localAddress.port)
        try dropped.send(get("/drop"))
        #expect(dropped.closeReason() == 0)

        let reset = try RawHTTPClient(port: server.localAddress.port)
        try reset.send(get("/reset"))
        #expect(reset.closeReason() == ECONNRESET)
    }

    @Test(arguments: Poller.Mechanism.allCases) func answers500WhenAHandlerForgetsToReply(_ poller: Poller.Mechanism)
        throws
    {
        let server = try startServer(poller)
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send(get("/forget"))
        let response = try client.readResponse()
        #expect(response.status == 500)
        #expect(response.text.contains("did not answer"))
    }

    @Test(arguments: Poller.Mechanism.allCases)
    func shutdownFinishesRequestsInFlightAndStopsAccepting(_ poller: Poller.Mechanism) throws {
        let server = try startServer(poller)
        let port = server.localAddress.port
        let client = try RawHTTPClient(port: port)
        try client.send(get("/slow"))
        usleep(50_000)
        let stopper = Thread { server.shutdown(gracePeriodMilliseconds: 5000) }
        stopper.start()
        let response = try client.readResponse()
        #expect(response.text == "slow")
        #expect(response.header("Connection") == "close")
        while !stopper.isFinished { usleep(10_000) }
        #expect(throws: (any Error).self) { try RawHTTPClient(port: port) }
    }
}
