/// An HTTP response; the server adds `Date`, `Server`, `Content-Length` and `Connection` when writing it.
package struct HTTPResponse: Sendable {
    package var status: HTTPStatus
    package var headers: HTTPHeaders
    package var body: [UInt8]

    package init(status: HTTPStatus, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    package static func text(_ status: HTTPStatus, _ text: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers.set(.contentType, "text/plain; charset=utf-8")
        return HTTPResponse(status: status, headers: headers, body: Array(text.utf8))
    }

    /// A response with `body` and the given content type.
    package static func content(_ status: HTTPStatus, type: String, _ body: [UInt8]) -> HTTPResponse {
        // Appended, not a dictionary literal: the literal's variadic array was one more allocation.
        var headers = HTTPHeaders()
        headers.append(.contentType, type)
        return HTTPResponse(status: status, headers: headers, body: body)
    }
}

/// An error that knows the response it stands for (a 4xx with a reason, for instance).
/// Handlers throw these; anything else becomes a 500 with a logged reason.
package protocol HTTPResponseError: Error {
    /// The response to send for this error.
    var response: HTTPResponse { get }
}

/// A plain-text error response: a status and a one-line reason.
package struct HTTPError: HTTPResponseError, Equatable, CustomStringConvertible {
    package let status: HTTPStatus
    package let reason: String
    package var headers: HTTPHeaders

    package init(_ status: HTTPStatus, _ reason: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    package var response: HTTPResponse { .text(status, reason, headers: headers) }
    package var description: String { "\(status.code) \(reason)" }
}
