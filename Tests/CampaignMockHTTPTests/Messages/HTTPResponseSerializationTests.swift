import Testing

@testable import CampaignMockHTTP
@testable import CampaignMockSystem

/// Every response's bytes are written by `HTTPResponse.serialized` into room reserved from an upper
/// bound of their length (``ByteWriter``): the exact bytes, for every shape of response.
@Suite("response bytes")
struct HTTPResponseSerializationTests {
    private static func text(
        _ response: HTTPResponse, close: Bool = false, isHead: Bool = false,
        chunked: Bool = false, announceKeepAlive: Bool = false
    ) -> String {
        String(
            decoding: response.serialized(
                date: "Tue, 24 Nov 2026 01:02:03 GMT", server: "campaign-mock/0.1.0", close: close, isHead: isHead,
                chunked: chunked, announceKeepAlive: announceKeepAlive), as: UTF8.self)
    }

    private static let head = "Date: Tue, 24 Nov 2026 01:02:03 GMT\r\nServer: campaign-mock/0.1.0\r\n"

    @Test func writesTheStatusLineTheHeadersTheLengthAndTheBody() {
        var headers: HTTPHeaders = [.contentType: "application/json"]
        headers.append(HTTPHeaderName(rawValue: "X-Many"), "one")
        headers.append(HTTPHeaderName(rawValue: "X-Many"), "two")
        // Framing headers a handler set are the server's to write, once.
        headers.append(.contentLength, "999")
        headers.append(.connection, "upgrade")
        let response = HTTPResponse(status: .ok, headers: headers, body: Array(#"{"ok":true}"#.utf8))
        #expect(
            Self.text(response)
                == "HTTP/1.1 200 OK\r\n" + Self.head
                + "Content-Type: application/json\r\nX-Many: one\r\nX-Many: two\r\nContent-Length: 11\r\n\r\n"
                + #"{"ok":true}"#)
    }

    @Test func answersHeadWithTheLengthAndNoBody() {
        let response = HTTPResponse(status: .ok, body: Array("hello".utf8))
        #expect(Self.text(response, isHead: true) == "HTTP/1.1 200 OK\r\n" + Self.head + "Content-Length: 5\r\n\r\n")
    }

    @Test func writesNoLengthWhereTheStatusForbidsABody() {
        let response = HTTPResponse(status: .noContent, body: Array("ignored".utf8))
        #expect(Self.text(response) == "HTTP/1.1 204 No Content\r\n" + Self.head + "\r\n")
    }

    @Test func announcesChunksCloseAndKeepAlive() {
        let response = HTTPResponse(status: .ok, body: Array("later".utf8))
        #expect(
            Self.text(response, close: true, chunked: true)
                == "HTTP/1.1 200 OK\r\n" + Self.head + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        #expect(
            Self.text(response, announceKeepAlive: true)
                == "HTTP/1.1 200 OK\r\n" + Self.head + "Content-Length: 5\r\nConnection: keep-alive\r\n\r\nlater")
    }

    /// Long and non-ASCII values, a reason phrase of its own and an empty body fit the room reserved.
    @Test func fitsLongHeadersAndOddStatuses() {
        let long = String(repeating: "ü", count: 5_000)
        let response = HTTPResponse(
            status: HTTPStatus(code: 599, reasonPhrase: "Custom Reason"), headers: [.contentType: long])
        #expect(
            Self.text(response)
                == "HTTP/1.1 599 Custom Reason\r\n" + Self.head + "Content-Type: \(long)\r\nContent-Length: 0\r\n\r\n")
    }

    /// Both writers of decimals share `ASCII.withDecimal`.
    @Test func writesDecimalsAtTheEdgesOfInt() {
        for value in [0, 7, -7, 1_000_000, Int.max, Int.min] {
            let bytes = ByteWriter.make(capacity: 21) { $0.append(decimal: value) }
            #expect(String(decoding: bytes, as: UTF8.self) == String(value))
            var appended = Array("x".utf8)
            ASCII.appendDecimal(value, to: &appended)
            #expect(String(decoding: appended, as: UTF8.self) == "x\(value)")
        }
    }
}
