import Testing

@testable import CampaignMockNetwork

/// How the HTTP/1.1 client follows an answer as it arrives: where it is complete, what it skips, and the
/// limits that stop a broken server (the end-to-end cases are in Tests/Contract/test_push_bounds.py).
@Suite("reading an HTTP/1.1 answer")
struct HTTPResponseReadingTests {
    private let limits = HTTPClient.Limits(headBytes: 64, bodyBytes: 16, seconds: nil)

    @Test func isCompleteAtItsContentLengthWithoutWaitingForTheEnd() throws {
        var progress = ResponseProgress(limits: limits)
        var received = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabc".utf8)
        #expect(try !progress.isComplete(received))
        received += Array("de".utf8)
        #expect(try progress.isComplete(received))
        #expect(try HTTPResponseReader.read(received).text == "abcde")
    }

    @Test func skipsInformationalAnswersButCountsThemInTheHead() throws {
        let answer = Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok".utf8)
        var progress = ResponseProgress(limits: HTTPClient.Limits(headBytes: 128, bodyBytes: 16, seconds: nil))
        #expect(try progress.isComplete(answer))
        let response = try HTTPResponseReader.read(answer)
        #expect(response.status == 201 && response.text == "ok")

        var endless = ResponseProgress(limits: limits)
        let continues = Array(repeating: Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), count: 3).flatMap { $0 }
        #expect(throws: HTTPClientError("the answer's status line and headers are over 64 bytes")) {
            try endless.isComplete(continues)
        }
    }

    @Test func refusesAHeadOrABodyOverItsLimit() throws {
        var headers = ResponseProgress(limits: limits)
        #expect(throws: HTTPClientError("the answer's status line and headers are over 64 bytes")) {
            try headers.isComplete(Array(("HTTP/1.1 200 OK\r\nX-Pad: " + String(repeating: "a", count: 64)).utf8))
        }
        var announced = ResponseProgress(limits: limits)
        #expect(throws: HTTPClientError("the answer's body is over 16 bytes")) {
            try announced.isComplete(Array("HTTP/1.1 200 OK\r\nContent-Length: 17\r\n\r\n".utf8))
        }
        var unannounced = ResponseProgress(limits: limits)
        #expect(throws: HTTPClientError("the answer's body is over 16 bytes")) {
            try unannounced.isComplete(Array(("HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "b", count: 17)).utf8))
        }
    }

    /// A chunk size with a sign, or too large to add to a position, is refused by name: it used to reach a
    /// range and stop the whole server.
    @Test func refusesAChunkSizeThatIsNegativeOrDoesNotFit() throws {
        for size in ["-1", "+2", "7fffffffffffffff", "ffffffffffffffffff", "", "0x2"] {
            let answer = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\nxx\r\n0\r\n\r\n".utf8)
            #expect(throws: HTTPClientError.self, "\(size)") { try HTTPResponseReader.read(answer) }
        }
        let good = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxx\r\n0\r\n\r\n".utf8)
        #expect(try HTTPResponseReader.read(good).text == "xx")
    }
}
