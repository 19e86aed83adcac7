import Testing

@testable import CampaignMockHTTP

/// The request value and its header names: values a handler may copy and change freely.
@Suite struct HTTPRequestValueTests {
    /// The fields live in a shared box: a changed copy must get a box of its own, and leave the request
    /// it was copied from as it was.
    @Test func aChangedCopyLeavesTheOriginalAlone() {
        let original = HTTPRequest(
            method: .get, target: "/r/?id=1", headers: [.host: "a"], body: [1], receivedAt: 5)
        var copy = original
        copy.method = .post
        copy.headers.append(.userAgent, "probe")
        copy.body = [2, 3]
        copy.receivedAt = 9
        copy.isSecure = true
        #expect(original.method == .get)
        #expect(original.headers.fields.count == 1)
        #expect(original.body == [1])
        #expect(original.receivedAt == 5)
        #expect(!original.isSecure)
        #expect(copy.method == .post && copy.headers[.userAgent] == "probe" && copy.body == [2, 3])
        #expect(copy.path == "/r/" && copy.query == "id=1")
    }

    @Test func pathAndQueryAreCutAtTheFirstQuestionMark() {
        let request = HTTPRequest(method: .get, target: "/a?b=?c")
        #expect(request.path == "/a")
        #expect(request.query == "b=?c")
        #expect(HTTPRequest(method: .get, target: "/plain").query == nil)
        #expect(HTTPRequest(method: .get, target: "/empty?").query == "")
    }

    /// Names compare and hash by their lowercase form (RFC 9110 §5.1), through the key made while
    /// lowering them, for names read from a request's bytes and names written in code alike.
    @Test func headerNamesIgnoreCaseInEqualityAndHashing() {
        let read = HTTPHeaderName(token: Array("CONTENT-type".utf8)[...])
        #expect(read == .contentType)
        #expect(read.rawValue == "CONTENT-type")
        #expect(Set([read, .contentType, HTTPHeaderName(rawValue: "content-TYPE")]).count == 1)
        #expect(read != .contentLength)
        #expect(HTTPHeaderName(rawValue: "X-A") != HTTPHeaderName(rawValue: "X-B"))
        // Not a token, but a name built in code may hold any text: lowered as Unicode text.
        #expect(HTTPHeaderName(rawValue: "X-Ÿ") == HTTPHeaderName(rawValue: "x-ÿ"))
        let headers: HTTPHeaders = [HTTPHeaderName(rawValue: "x-request-id"): "7"]
        #expect(headers[HTTPHeaderName(rawValue: "X-Request-ID")] == "7")
    }

    @Test func methodsCompareByTheirWholeName() {
        #expect(HTTPMethod(rawValue: "GET") == .get)
        #expect(HTTPMethod.get != .put)  // same length
        #expect(HTTPMethod.get != .post)
        #expect(Set([HTTPMethod(rawValue: "PATCH"), .patch]).count == 1)
    }
}
