/// An HTTP request method (RFC 9110 §9). Open set: any token parses; the common ones are named.
package struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }

    package static let get = HTTPMethod(rawValue: "GET")
    package static let head = HTTPMethod(rawValue: "HEAD")
    package static let post = HTTPMethod(rawValue: "POST")
    package static let put = HTTPMethod(rawValue: "PUT")
    package static let delete = HTTPMethod(rawValue: "DELETE")
    package static let options = HTTPMethod(rawValue: "OPTIONS")
    package static let patch = HTTPMethod(rawValue: "PATCH")

    /// Lengths first: most methods compared differ in length, and two different strings take Swift's
    /// slow path of string comparison.
    package static func == (lhs: HTTPMethod, rhs: HTTPMethod) -> Bool {
        lhs.rawValue.utf8.count == rhs.rawValue.utf8.count && lhs.rawValue == rhs.rawValue
    }

    package var description: String { rawValue }
}
