/// Values taken from `{name}` segments of a route pattern, percent-decoded.
package struct RouteParameters: Sendable {
    private var values: [String: String] = [:]
    package init() {}
    package subscript(_ name: String) -> String? {
        get { values[name] }
        set { values[name] = newValue }
    }
}

/// Routes requests by method and path pattern (`/_mock/devices/{token}`).
///
/// A path that matches with another method gets `405` and an `Allow` header; HEAD falls back to GET;
/// no match goes to the fallback (404 by default).
package struct Router: HTTPHandler {
    /// A route's body.
    package typealias Body = @Sendable (HTTPRequest, RouteParameters, ReplyChannel) -> Void

    /// Answers a path that exists with a method it does not take; gets the allowed methods.
    package typealias MethodNotAllowed = @Sendable (HTTPRequest, [HTTPMethod], ReplyChannel) -> Void

    private struct Route: Sendable {
        /// nil: any method (the body checks it).
        let method: HTTPMethod?
        let segments: [Substring]
        let body: Body
    }

    private var routes: [Route] = []
    private let notFound: @Sendable (HTTPRequest, ReplyChannel) -> Void
    private let methodNotAllowed: MethodNotAllowed

    package init(
        notFound: @escaping @Sendable (HTTPRequest, ReplyChannel) -> Void = Router.notFound,
        methodNotAllowed: @escaping MethodNotAllowed = Router.methodNotAllowed
    ) {
        self.notFound = notFound
        self.methodNotAllowed = methodNotAllowed
    }

    /// Adds a route; `method` nil takes every method. `pattern` segments in braces capture one segment.
    package mutating func add(_ method: HTTPMethod?, _ pattern: String, _ body: @escaping Body) {
        routes.append(Route(method: method, segments: Self.segments(pattern), body: body))
    }

    /// Every route as (method, pattern); a nil method takes every method.
    package var routePatterns: [(method: HTTPMethod?, pattern: String)] {
        routes.map { ($0.method, "/" + $0.segments.joined(separator: "/")) }
    }

    package func handle(_ request: HTTPRequest, reply: ReplyChannel) {
        let path = Self.segments(request.path)
        var allowed: [HTTPMethod] = []
        for method in request.method == .head ? [.head, .get] : [request.method] {
            for route in routes {
                guard let parameters = Self.match(route.segments, path) else { continue }
                if route.method == nil || route.method == method {
                    route.body(request, parameters, reply)
                    return
                }
            }
        }
        for route in routes where Self.match(route.segments, path) != nil {
            if let method = route.method, !allowed.contains(method) { allowed.append(method) }
        }
        if allowed.isEmpty {
            notFound(request, reply)
        } else {
            if allowed.contains(.get) && !allowed.contains(.head) { allowed.append(.head) }
            methodNotAllowed(request, allowed, reply)
        }
    }

    /// The default: `404` naming the path.
    package static func notFound(_ request: HTTPRequest, _ reply: ReplyChannel) {
        reply.send(HTTPError(.notFound, "no endpoint at \(request.path)").response)
    }

    /// The default: `405` with `Allow`.
    package static func methodNotAllowed(_ request: HTTPRequest, _ allowed: [HTTPMethod], _ reply: ReplyChannel) {
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        reply.send(
            HTTPError(
                .methodNotAllowed, "\(request.method) is not allowed on \(request.path); use \(list)",
                headers: [.allow: list]
            ).response)
    }

    /// The path's segments, split on the byte of `/` (every request is routed; splitting by Character
    /// cost a twelfth of a tracking hit).
    private static func segments(_ path: String) -> [Substring] {
        path.utf8.split(separator: UInt8(ascii: "/")).map { Substring($0) }
    }

    private static func match(_ pattern: [Substring], _ path: [Substring]) -> RouteParameters? {
        guard pattern.count == path.count else { return nil }
        var parameters = RouteParameters()
        for (expected, actual) in zip(pattern, path) {
            if expected.utf8.first == UInt8(ascii: "{") && expected.utf8.last == UInt8(ascii: "}") {
                guard let decoded = PercentEncoding.decode(actual) else { return nil }
                parameters[String(expected.dropFirst().dropLast())] = decoded
            } else if !expected.utf8.elementsEqual(actual.utf8) {
                return nil
            }
        }
        return parameters
    }
}
