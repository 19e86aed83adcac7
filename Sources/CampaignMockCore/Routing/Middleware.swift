/// Runs around every request of a route group (``Router/group(_:middleware:notFound:errorResponse:_:)``):
/// it may answer by itself, or hand the request on to `next` (the rest of the group's middleware, then the
/// route), giving it `reply` or a channel of its own to see the answer on its way out.
///
/// The one mechanism for concerns shared by many routes: access rules, logging, recording, forwarding.
///
/// An error thrown by a route or a middleware is answered at once, in the group's error format, on the
/// channel that route or middleware was given: the middleware further out see it as a response, like any
/// other (a channel is one-shot, so the error must not travel past one that a middleware is watching).
package protocol Middleware: Sendable {
    func handle(_ request: HTTPRequest, reply: ReplyChannel, next: MiddlewareNext) throws
}

/// The rest of a middleware chain: the next middleware, or the route. It answers its errors itself.
package typealias MiddlewareNext = (HTTPRequest, ReplyChannel) -> Void

/// A set of routes under one path prefix that share middleware (and the answer for a path under the prefix
/// that no route takes). Build it in ``Router/group(_:middleware:notFound:errorResponse:_:)``.
package struct RouteGroup {
    /// `/_mock`; `/` is every path that no other group's prefix covers.
    package let prefix: String
    fileprivate(set) var routes: [(method: HTTPMethod?, pattern: String, body: Router.Body)] = []

    fileprivate init(prefix: String) {
        self.prefix = prefix
    }

    /// Adds a route; `method` nil takes every method. `pattern` is the whole path, under the prefix;
    /// segments in braces capture one segment.
    package mutating func add(_ method: HTTPMethod?, _ pattern: String, _ body: @escaping Router.Body) {
        precondition(Router.isUnder(pattern, prefix), "\(pattern) is not under the group's prefix \(prefix)")
        routes.append((method, pattern, body))
    }

    /// Adds a route whose body answers at once with a response (or throws).
    package mutating func add(
        _ method: HTTPMethod?, _ pattern: String,
        respond: @escaping @Sendable (HTTPRequest, RouteParameters) throws -> HTTPResponse
    ) {
        add(method, pattern) { request, parameters, reply in reply.send(try respond(request, parameters)) }
    }
}

extension Router {
    /// Declares a group: `build` adds its routes, each of which runs behind `middleware` (the first is the
    /// outermost). A path under `prefix` that no route takes goes through the same middleware to
    /// `notFound` (by default a `404` naming the path), or to a `405` when another method would match.
    /// Errors are answered as `errorResponse` makes them (by default the error's own response, or a `500`).
    ///
    /// A request belongs to the group with the longest prefix that covers its path.
    package mutating func group(
        _ prefix: String, middleware: [any Middleware] = [], notFound: Body? = nil,
        errorResponse: @escaping ErrorResponse = Router.errorResponse, _ build: (inout RouteGroup) -> Void
    ) {
        var group = RouteGroup(prefix: prefix)
        build(&group)
        addGroup(
            Group(
                prefix: prefix, middleware: middleware, notFound: notFound ?? Self.notFound,
                errorResponse: errorResponse),
            routes: group.routes)
    }

    /// Whether `path` is `prefix` or below it.
    static func isUnder(_ path: String, _ prefix: String) -> Bool {
        if prefix == "/" || prefix.isEmpty { return path.hasPrefix("/") }
        return path == prefix
            || (path.hasPrefix(prefix) && path.utf8.dropFirst(prefix.utf8.count).first == UInt8(ascii: "/"))
    }
}
