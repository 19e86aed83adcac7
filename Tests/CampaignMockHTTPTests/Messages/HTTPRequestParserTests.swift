import CampaignMockTestSupport
import Foundation
import Testing

@testable import CampaignMockHTTP

/// Parses `text` fed in one piece and returns every event, or the error.
private func parse(_ text: String, limits: HTTPRequestParser.Limits = .init()) -> Result<
    [HTTPRequestParser.Progress], HTTPError
> {
    var parser = HTTPRequestParser(limits: limits)
    parser.append(Array(text.utf8))
    var events: [HTTPRequestParser.Progress] = []
    do {
        while let event = try parser.next() {
            events.append(event)
            if case .head = event, let next = try parser.admit(lease: nil) { events.append(next) }
        }
        return .success(events)
    } catch {
        return .failure(error)
    }
}

private func requests(_ text: String) throws -> [HTTPRequest] {
    try parse(text).get().compactMap { event in
        if case .request(let request) = event { return request }
        return nil
    }
}

@Suite("HTTP/1.1 request parser")
struct HTTPRequestParserTests {
    /// One malformed request and the status the server must answer with.
    struct Malformed: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        let status: Int
        var testDescription: String { "\(name) → \(status)" }
    }

    static let small = HTTPRequestParser.Limits(requestLineBytes: 64, headerBytes: 256, headerCount: 5, bodyBytes: 16)

    static let malformed: [Malformed] = [
        // Request line (RFC 9112 §3)
        .init(name: "two components", text: "GET /\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "four components", text: "GET / x HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "double space", text: "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "trailing space", text: "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", status: 400),
        .init(name: "tab separator", text: "GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "method with slash", text: "GE/T / HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "method with colon", text: "GET: / HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "lowercase version", text: "GET / http/1.1\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "version without minor", text: "GET / HTTP/1\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "version with two digits", text: "GET / HTTP/1.10\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "HTTP/2.0", text: "GET / HTTP/2.0\r\nHost: a\r\n\r\n", status: 505),
        .init(name: "HTTP/0.9", text: "GET / HTTP/0.9\r\nHost: a\r\n\r\n", status: 505),
        .init(name: "relative target", text: "GET index.html HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "asterisk with GET", text: "GET * HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "non-ASCII target", text: "GET /caf\u{e9} HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "control in target", text: "GET /a\u{1}b HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
        .init(
            name: "request line too long", text: "GET /" + String(repeating: "a", count: 100) + " HTTP/1.1\r\n\r\n",
            status: 414),
        .init(name: "endless request line", text: "GET /" + String(repeating: "a", count: 100), status: 414),
        // Line endings (RFC 9112 §2.2)
        .init(name: "bare LF after request line", text: "GET / HTTP/1.1\nHost: a\r\n\r\n", status: 400),
        .init(
            name: "fragment in the request-target", text: "GET /r/?id=h1,d,1#top HTTP/1.1\r\nHost: a\r\n\r\n",
            status: 400),
        .init(name: "bare LF after header", text: "GET / HTTP/1.1\r\nHost: a\n\r\n", status: 400),
        .init(name: "bare CR in header value", text: "GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", status: 400),
        .init(name: "bare CR in request line", text: "GET /\r HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
        // Header fields (RFC 9112 §5)
        .init(name: "obs-fold", text: "GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n 2\r\n\r\n", status: 400),
        .init(name: "space before colon", text: "GET / HTTP/1.1\r\nHost : a\r\n\r\n", status: 400),
        .init(name: "no colon", text: "GET / HTTP/1.1\r\nHost a\r\n\r\n", status: 400),
        .init(name: "empty name", text: "GET / HTTP/1.1\r\n: a\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "name with bracket", text: "GET / HTTP/1.1\r\nX[1]: a\r\nHost: a\r\n\r\n", status: 400),
        .init(name: "NUL in value", text: "GET / HTTP/1.1\r\nHost: a\u{0}\r\n\r\n", status: 400),
        .init(name: "DEL in value", text: "GET / HTTP/1.1\r\nHost: a\u{7f}\r\n\r\n", status: 400),
        .init(
            name: "too many headers", text: "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\nE: 1\r\n\r\n",
            status: 431),
        .init(
            name: "header section too large",
            text: "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 300) + "\r\n\r\n", status: 431),
        .init(
            name: "endless header line", text: "GET / HTTP/1.1\r\nX: " + String(repeating: "v", count: 300), status: 431
        ),
        // Host (RFC 9112 §3.2)
        .init(name: "missing Host in HTTP/1.1", text: "GET / HTTP/1.1\r\n\r\n", status: 400),
        .init(name: "two Host headers", text: "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400),
        // Expect (RFC 9110 §10.1.1)
        .init(
            name: "unknown expectation",
            text: "POST / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\nContent-Length: 1\r\n\r\nx", status: 417),
        // Content-Length (RFC 9112 §6.3)
        .init(
            name: "non-numeric length", text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n", status: 400),
        .init(name: "negative length", text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", status: 400),
        .init(name: "length with sign", text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n", status: 400),
        .init(name: "empty length", text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \r\n\r\n", status: 400),
        .init(
            name: "conflicting lengths",
            text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", status: 400),
        .init(
            name: "conflicting list", text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 2\r\n\r\nxx", status: 400),
        .init(
            name: "length with trailing comma", text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1,\r\n\r\nx",
            status: 400),
        .init(name: "body over limit", text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 17\r\n\r\n", status: 413),
        .init(
            name: "15-digit length", text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100000000000000\r\n\r\n",
            status: 413),
        .init(
            name: "16-digit length", text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000000000000\r\n\r\n",
            status: 413),
        .init(
            name: "absurd length",
            text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n", status: 413),
        // Transfer-Encoding (RFC 9112 §6.1, §6.3, §7.1)
        .init(
            name: "both CL and TE",
            text: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            status: 400),
        .init(
            name: "TE not ending in chunked",
            text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", status: 400),
        .init(
            name: "TE gzip then chunked",
            text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", status: 501),
        .init(
            name: "TE identity", text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n", status: 400),
        .init(
            name: "chunked twice", text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
            status: 400),
        .init(name: "empty TE", text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \r\n\r\n", status: 400),
        .init(
            name: "TE in HTTP/1.0", text: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400),
        .init(
            name: "chunk size not hex", text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            status: 400),
        .init(
            name: "chunk size empty", text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\r\n",
            status: 400),
        .init(
            name: "chunk size with sign",
            text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", status: 400),
        .init(
            name: "chunk size then junk",
            text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5 x\r\n", status: 400),
        .init(
            name: "chunk data without CRLF",
            text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY", status: 400),
        .init(
            name: "chunks over limit",
            text:
                "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n1\r\nx\r\n",
            status: 413),
        .init(
            name: "huge chunk size",
            text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n",
            status: 413),
        .init(
            name: "bare LF after chunk size",
            text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\nx\r\n0\r\n\r\n", status: 400),
        .init(
            name: "bad trailer field",
            text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n",
            status: 400),
    ]

    @Test("malformed input gets its exact status", arguments: malformed)
    func rejectsMalformedRequest(_ example: Malformed) {
        switch parse(example.text, limits: Self.small) {
        case .success(let events):
            Issue.record("parsed \(events.count) events instead of failing")
        case .failure(let error):
            #expect(error.status.code == example.status, "\(error.reason)")
            #expect(!error.reason.isEmpty)
        }
    }

    @Test func hasAtLeastFortyMalformedCases() {
        #expect(Self.malformed.count >= 40)
    }

    @Test func parsesAndroidRegistrationRequest() throws {
        let body = "registrationToken=testToken&mobileAppUuid=testIntegrationKey&userKey=testUser"
        let text =
            "POST /nms/mobile/1/registerAndroid.jssp HTTP/1.1\r\nHost: testMarketingServer\r\n"
            + "Content-Type: application/x-www-form-urlencoded;charset=UTF-8\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            + body
        let request = try #require(try requests(text).first)
        #expect(request.method == .post)
        #expect(request.path == "/nms/mobile/1/registerAndroid.jssp")
        #expect(request.query == nil)
        #expect(request.headers[.contentType] == "application/x-www-form-urlencoded;charset=UTF-8")
        #expect(request.headers[HTTPHeaderName(rawValue: "content-type")] != nil)
        #expect(request.bodyText == body)
    }

    @Test func parsesTrackingTargetWithQuery() throws {
        let request = try #require(try requests("GET /r/?id=h3039,testDeliveryId,1 HTTP/1.1\r\nHost: t\r\n\r\n").first)
        #expect(request.path == "/r/")
        #expect(request.query == "id=h3039,testDeliveryId,1")
    }

    @Test func reducesAbsoluteFormToPath() throws {
        let request = try #require(
            try requests("GET http://example.test:8080/r/test?x=1 HTTP/1.1\r\nHost: e\r\n\r\n").first)
        #expect(request.target == "/r/test?x=1")
    }

    @Test func decodesChunkedBodyWithExtensionsAndTrailers() throws {
        let text =
            "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n"
        let request = try #require(try requests(text).first)
        #expect(request.bodyText == "hello world")
    }

    /// One plain Content-Length is read straight from its digits; leading zeros do not count towards the
    /// 15 digits a length may have (the malformed cases hold the 15- and 16-digit lengths).
    @Test func readsAPlainContentLengthWithLeadingZeros() throws {
        let text = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 00000000000000000002\r\n\r\nok"
        #expect(try #require(try requests(text).first).bodyText == "ok")
    }

    @Test func acceptsIdenticalRepeatedContentLengths() throws {
        let request = try #require(try requests("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2, 2\r\n\r\nok").first)
        #expect(request.bodyText == "ok")
    }

    @Test func skipsEmptyLinesBeforeRequestLine() throws {
        #expect(try requests("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n").count == 1)
    }

    @Test func parsesPipelinedRequestsInOrder() throws {
        let text = (1...3).map { "GET /\($0) HTTP/1.1\r\nHost: a\r\n\r\n" }.joined()
        #expect(try requests(text).map(\.path) == ["/1", "/2", "/3"])
    }

    @Test func feedsOneByteAtATime() throws {
        let text = "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        var parser = HTTPRequestParser()
        var found: [HTTPRequest] = []
        for byte in text.utf8 {
            parser.append([byte])
            while let event = try parser.next() {
                if case .request(let request) = event { found.append(request) }
            }
        }
        #expect(found.map(\.bodyText) == ["abc"])
        #expect(!parser.hasPartialRequest)
    }

    @Test func announcesContinueOnlyBeforeTheBody() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n".utf8))
        // The head first: the server decides on it before it lets the body come.
        guard case .head(let head) = try parser.next() else {
            Issue.record("expected the head")
            return
        }
        #expect(head.path == "/" && head.body.isEmpty)
        #expect(try parser.next() == nil)
        guard case .continueExpected = try parser.admit(lease: nil) else {
            Issue.record("expected 100-continue")
            return
        }
        #expect(try parser.next() == nil)
        parser.append(Array("ok".utf8))
        guard case .request(let request) = try parser.next() else {
            Issue.record("expected the request")
            return
        }
        #expect(request.bodyText == "ok")

        let eager = try parse("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok").get()
        #expect(eager.count == 2)
        if case .continueExpected = eager[0] { Issue.record("100 Continue after the body came") }
    }

    @Test func keepAliveFollowsVersionAndConnectionHeader() throws {
        #expect(try requests("GET / HTTP/1.1\r\nHost: a\r\n\r\n")[0].wantsKeepAlive)
        #expect(try !requests("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")[0].wantsKeepAlive)
        #expect(try !requests("GET / HTTP/1.0\r\n\r\n")[0].wantsKeepAlive)
        #expect(try requests("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")[0].wantsKeepAlive)
    }

    @Test func answersHigherMinorVersionAsHTTP11() throws {
        let request = try #require(try requests("GET / HTTP/1.7\r\nHost: a\r\n\r\n").first)
        #expect(request.version.minor == 1)
    }

    /// Field values lose their surrounding spaces and tabs only; names compare without case.
    @Test func trimsFieldValuesAndComparesNamesWithoutCase() throws {
        let request = try #require(
            try requests("GET / HTTP/1.1\r\nHost: a\r\nX-Name: \t é b \t\r\nX-Empty:   \r\n\r\n").first)
        #expect(request.headers[HTTPHeaderName(rawValue: "x-NAME")] == "é b")
        #expect(request.headers[HTTPHeaderName(rawValue: "X-EMPTY")] == "")
        #expect(HTTPHeaderName(rawValue: "Content-TYPE") == .contentType)
        #expect(HTTPHeaderName(rawValue: "Ünïcode").canonical == "ünïcode")
        #expect(" \t a é\t ".trimmingASCIISpaces() == "a é")
        #expect("\t".trimmingASCIISpaces() == "")
        #expect("é".dropFirst(0).trimmingASCIISpaces() == "é")
    }
}

@Suite("request bodies spooled to a file")
struct SpooledBodyTests {
    private let directory = TemporaryDirectory()

    private func parser(limit: Int = 64) -> HTTPRequestParser {
        HTTPRequestParser(
            limits: .init(bodyBytes: 16),
            spooling: BodySpooling(directory: directory.path, limit: limit, routes: [.init(.put, "/_mock/state")]))
    }

    private func request(_ text: String, _ parser: inout HTTPRequestParser) throws -> HTTPRequest? {
        // One byte at a time: every piece of the body goes through the file.
        for byte in text.utf8 {
            parser.append([byte])
            switch try parser.next() {
            case .request(let request): return request
            case .head: _ = try parser.admit(lease: nil)
            default: break
            }
        }
        return nil
    }

    /// Until the server admits the head, nothing of the body is taken and no file is made; the request
    /// carries what the admission gave it.
    @Test func theBodyWaitsForTheHeadToBeAdmitted() throws {
        var parser = parser()
        parser.append(Array("PUT /_mock/state HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nbody".utf8))
        guard case .head(let head) = try parser.next() else {
            Issue.record("expected the head")
            return
        }
        #expect(head.spooledBody == nil && head.lease == nil)
        #expect(try parser.next() == nil)
        #expect(parser.unparsedByteCount == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        final class Token: Sendable {}
        let token = Token()
        #expect(try parser.admit(lease: token) == nil)
        guard case .request(let request) = try parser.next() else {
            Issue.record("expected the request")
            return
        }
        #expect(request.lease === token)
        #expect(try request.bodySource.read(at: 0, length: 10) == Array("body".utf8))
    }

    @Test func aSpooledRouteTakesABodyPastTheMemoryLimitIntoAnUnlinkedFile() throws {
        var parser = parser()
        let body = String(repeating: "0123456789", count: 5)
        let fixed = try #require(
            try request("PUT /_mock/state?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 50\r\n\r\n\(body)", &parser))
        #expect(fixed.body.isEmpty)
        let spooled = try #require(fixed.spooledBody)
        #expect(spooled.count == 50)
        #expect(try spooled.read(at: 0, length: 100) == Array(body.utf8))
        #expect(try spooled.read(at: 45, length: 3) == Array("567".utf8))
        #expect(try fixed.bodySource.read(at: 10, length: 2) == Array("01".utf8))
        // Nothing is left in the folder, even while the request is alive.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        let chunked = try #require(
            try request(
                "PUT /_mock/state HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n14\r\n\(body.prefix(20))\r\n1e\r\n\(body.dropFirst(20))\r\n0\r\n\r\n",
                &parser))
        #expect(try chunked.spooledBody?.read(at: 0, length: 100) == Array(body.utf8))
    }

    @Test func theSpoolHasItsOwnLimitAndOtherRoutesKeepTheirs() throws {
        var parser = parser()
        #expect(throws: HTTPError(.contentTooLarge, "request body is larger than 64 bytes")) {
            try request("PUT /_mock/state HTTP/1.1\r\nHost: a\r\nContent-Length: 65\r\n\r\n", &parser)
        }
        var chunked = self.parser()
        #expect(throws: HTTPError(.contentTooLarge, "request body is larger than 64 bytes")) {
            try request(
                "PUT /_mock/state HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n\(String(repeating: "x", count: 64))\r\n1\r\n",
                &chunked)
        }
        for head in ["GET /_mock/state", "PUT /_mock/faults", "PUT /_mock/state/x"] {
            var other = self.parser()
            #expect(throws: HTTPError(.contentTooLarge, "request body is larger than 16 bytes")) {
                try request("\(head) HTTP/1.1\r\nHost: a\r\nContent-Length: 17\r\n\r\n", &other)
            }
        }
        var small = self.parser()
        let kept = try #require(try request("POST /r HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nok", &small))
        #expect(kept.spooledBody == nil && kept.body == Array("ok".utf8))
    }

    @Test func aFolderThatCannotHoldTheBodyIsAnInsufficientStorageAnswer() throws {
        var parser = HTTPRequestParser(
            spooling: BodySpooling(directory: directory.path + "/missing", limit: 64, routes: [.init(.put, "/s")]))
        do {
            _ = try request("PUT /s HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nx", &parser)
            Issue.record("a body with nowhere to go was taken")
        } catch let error as HTTPError {
            #expect(error.status == .insufficientStorage)
        }
    }
}
