/// An HTTP status code with its reason phrase (RFC 9110 §15).
package struct HTTPStatus: Sendable, Hashable, CustomStringConvertible {
    package let code: Int
    package let reasonPhrase: String

    package init(code: Int, reasonPhrase: String? = nil) {
        self.code = code
        self.reasonPhrase = reasonPhrase ?? HTTPStatus.phrases[code] ?? "Status \(code)"
    }

    package var description: String { "\(code) \(reasonPhrase)" }

    /// Whether a response with this status never has content (RFC 9110 §6.4.1).
    package var forbidsBody: Bool { (100..<200).contains(code) || code == 204 || code == 304 }

    package static let `continue` = HTTPStatus(code: 100)
    package static let ok = HTTPStatus(code: 200)
    package static let created = HTTPStatus(code: 201)
    package static let found = HTTPStatus(code: 302)
    package static let noContent = HTTPStatus(code: 204)
    package static let badRequest = HTTPStatus(code: 400)
    package static let unauthorized = HTTPStatus(code: 401)
    package static let forbidden = HTTPStatus(code: 403)
    package static let notFound = HTTPStatus(code: 404)
    package static let methodNotAllowed = HTTPStatus(code: 405)
    package static let requestTimeout = HTTPStatus(code: 408)
    package static let conflict = HTTPStatus(code: 409)
    package static let contentTooLarge = HTTPStatus(code: 413)
    package static let uriTooLong = HTTPStatus(code: 414)
    package static let unsupportedMediaType = HTTPStatus(code: 415)
    package static let expectationFailed = HTTPStatus(code: 417)
    package static let preconditionRequired = HTTPStatus(code: 428)
    package static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    package static let internalServerError = HTTPStatus(code: 500)
    package static let notImplemented = HTTPStatus(code: 501)
    package static let serviceUnavailable = HTTPStatus(code: 503)
    package static let httpVersionNotSupported = HTTPStatus(code: 505)
    package static let badGateway = HTTPStatus(code: 502)
    package static let insufficientStorage = HTTPStatus(code: 507)

    private static let phrases: [Int: String] = [
        100: "Continue", 200: "OK", 201: "Created", 202: "Accepted", 204: "No Content",
        301: "Moved Permanently", 302: "Found", 304: "Not Modified",
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict", 410: "Gone",
        411: "Length Required", 413: "Content Too Large", 414: "URI Too Long",
        415: "Unsupported Media Type", 417: "Expectation Failed", 422: "Unprocessable Content",
        428: "Precondition Required", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
        503: "Service Unavailable", 504: "Gateway Timeout", 505: "HTTP Version Not Supported",
        507: "Insufficient Storage",
    ]
}
