import CampaignMockTestSupport
import Dispatch
import Foundation
import Testing

@testable import CampaignMockCore

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

private func startServer(_ adjust: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> HTTPServer {
    var configuration = HTTPServerConfiguration(address: try SocketAddress(parsing: "127.0.0.1", port: 0))
    adjust(&configuration)
    return try HTTPServer(configuration: configuration, handler: ScriptedHandler())
}

private func get(_ path: String, close: Bool = false) -> String {
    "GET \(path) HTTP/1.1\r\nHost: test\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n"
}

@Suite("HTTP server on real sockets", .timeLimit(.minutes(2)))
struct HTTPServerTests {
    @Test func answersThousandRequestsOnOneKeepAliveConnection() throws {
        let server = try startServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        for index in 0..<1000 {
            try client.send(get("/n/\(index)"))
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "GET /n/\(index) ")
        }
    }

    @Test func answersTwoHundredConcurrentConnections() throws {
        let server = try startServer()
        defer { server.shutdown() }
        let port = server.localAddress.port
        let failures = LockedCounter()
        let answered = LockedCounter()
        let group = DispatchGroup()
        for connection in 0..<200 {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do {
                    let client = try RawHTTPClient(port: port)
                    for request in 0..<50 {
                        try client.send(get("/c/\(connection)/\(request)"))
                        let response = try client.readResponse()
                        if response.status == 200 && response.text == "GET /c/\(connection)/\(request) " {
                            answered.increment()
                        } else {
                            failures.increment()
                        }
                    }
                } catch {
                    failures.increment()
                }
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
        group.wait()
        #expect(failures.value == 0)
        #expect(answered.value == 200 * 50)
    }

    @Test func answersPipelinedRequestsInOrder() throws {
        let server = try startServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        let paths = ["/a", "/later", "/b", "/later", "/c"]
        try client.send(paths.map { get($0) }.joined())
        let bodies = try paths.map { _ in try client.readResponse().text }
        #expect(bodies == ["GET /a ", "later", "GET /b ", "later", "GET /c "])
    }

    @Test func stalledClientDoesNotDelayAnother() throws {
        let server = try startServer()
        defer { server.shutdown() }
        let stalled = try (0..<20).map { _ in try RawHTTPClient(port: server.localAddress.port) }
        for client in stalled { try client.send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Le") }
        let started = Date()
        let client = try RawHTTPClient(port: server.localAddress.port)
        for _ in 0..<50 {
            try client.send(get("/ok"))
            #expect(try client.readResponse().status == 200)
        }
        // The header timeout is 10 s: finishing well before it shows nobody waited for the stalled clients.
        #expect(Date().timeIntervalSince(started) < 5)
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let text: String
        let status: Int
        var testDescription: String { "\(status): \(text.prefix(40).debugDescription)" }
    }

    static let malformed: [Malformed] = [
        .init(text: "GET /\r\n\r\n", status: 400),
        .init(text: "GET / HTTP/1.1\nHost: a\n\n", status: 400),
        .init(text: "GET / HTTP/1.1\r\n\r\n", status: 400),
        .init(text: "GET / HTTP/3.0\r\nHost: a\r\n\r\n", status: 505),
        .init(text: "GET /" + String(repeating: "x", count: 9000) + " HTTP/1.1\r\nHost: a\r\n\r\n", status: 414),
        .init(
            text: "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 40000) + "\r\n\r\n", status: 431),
        .init(
            text: "GET / HTTP/1.1\r\nHost: a\r\n" + (0..<150).map { "X-\($0): 1\r\n" }.joined() + "\r\n", status: 431),
        .init(text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n", status: 413),
        .init(text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", status: 400),
        .init(
            text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            status: 400),
        .init(text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", status: 501),
        .init(text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", status: 400),
        .init(text: "GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n folded\r\n\r\n", status: 400),
        .init(text: "GET / HTTP/1.1\r\nHost : a\r\n\r\n", status: 400),
        .init(text: "POST / HTTP/1.1\r\nHost: a\r\nExpect: magic\r\n\r\n", status: 417),
        .init(text: "\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}\r\n\r\n", status: 400),
    ]

    @Test("malformed request gets its status, the connection closes, the server stays up", arguments: malformed)
    func rejectsMalformedRequestAndStaysUp(_ example: Malformed) throws {
        let server = try startServer()
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

    @Test func answersGarbageAfterAGoodPipelinedRequestAndCloses() throws {
        let server = try startServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send(get("/first") + "\u{1}\u{2}garbage\r\n\r\n")
        #expect(try client.readResponse().text == "GET /first ")
        #expect(try client.readResponse().status == 400)
        #expect(client.isClosedByServer())
    }

    @Test func sendsContinueThenReadsBody() throws {
        let server = try startServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send("POST /upload HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        #expect(try client.readResponse().status == 100)
        try client.send("hello")
        #expect(try client.readResponse().text == "POST /upload hello")
    }

    @Test func refusesOversizedBodyBeforeItIsSent() throws {
        let server = try startServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send("POST /upload HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 104857600\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(response.text.contains("larger than"))
    }

    @Test func decodesChunkedRequestBody() throws {
        let server = try startServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send(
            "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n")
        #expect(try client.readResponse().text == "POST /c Wikipedia")
    }

    @Test func answersHeadWithHeadersOnly() throws {
        let server = try startServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send("HEAD /h HTTP/1.1\r\nHost: a\r\n\r\n" + get("/next"))
        let head = try client.readResponse(head: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == String("HEAD /h ".utf8.count))
        #expect(head.body.isEmpty)
        #expect(try client.readResponse().text == "GET /next ")
    }

    @Test func everyResponseCarriesDateServerAndLength() throws {
        let server = try startServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send(get("/x"))
        let response = try client.readResponse()
        #expect(response.header("Date")?.hasSuffix(" GMT") == true)
        #expect(response.header("Server") == "campaign-mock")
        #expect(response.header("Content-Length") == "7")
    }

    @Test func closesAfterHTTP10AndConnectionClose() throws {
        let server = try startServer()
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

    @Test func answersAClientThatHalfClosedAfterItsRequest() throws {
        let server = try startServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send(get("/later"))
        client.shutdownWrite()
        #expect(try client.readResponse().text == "later")
    }

    @Test func timesOutAnIncompleteHeadWith408() throws {
        let server = try startServer { $0.headerTimeoutMilliseconds = 200 }
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send("GET / HTTP/1.1\r\nHo")
        let response = try client.readResponse()
        #expect(response.status == 408)
        #expect(client.isClosedByServer())
    }

    @Test func timesOutAnIncompleteBodyWith408() throws {
        let server = try startServer { $0.bodyTimeoutMilliseconds = 200 }
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
        #expect(try client.readResponse().status == 408)
    }

    @Test func closesIdleKeepAliveConnections() throws {
        let server = try startServer { $0.idleTimeoutMilliseconds = 200 }
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send(get("/x"))
        _ = try client.readResponse()
        #expect(try client.readUntilClosed().isEmpty)
    }

    @Test func refusesConnectionsBeyondTheLimitWith503() throws {
        let server = try startServer { $0.maxConnections = 2 }
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

    @Test func dropsAndResetsConnectionsOnRequest() throws {
        let server = try startServer()
        defer { server.shutdown() }
        let dropped = try RawHTTPClient(port: server.localAddress.port)
        try dropped.send(get("/drop"))
        #expect(dropped.closeReason() == 0)

        let reset = try RawHTTPClient(port: server.localAddress.port)
        try reset.send(get("/reset"))
        #expect(reset.closeReason() == ECONNRESET)
    }

    @Test func answers500WhenAHandlerForgetsToReply() throws {
        let server = try startServer()
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.localAddress.port)
        try client.send(get("/forget"))
        let response = try client.readResponse()
        #expect(response.status == 500)
        #expect(response.text.contains("did not answer"))
    }

    @Test func shutdownFinishesRequestsInFlightAndStopsAccepting() throws {
        let server = try startServer()
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

/// A thread-safe counter for tests.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
