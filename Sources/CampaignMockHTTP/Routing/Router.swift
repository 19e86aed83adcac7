/// Values taken from `{name}` segments of a route pattern, percent-decoded.
package struct RouteParameters: Sendable {
    private var values: [String: String] = [:]
    package init() {}
    package subscript(_ name: String) -> String? {
        get { values[name] }
        set { values[name] = newValue }
    }
}

/// Routes requests by method and path pattern (`/_mock/devices/{token}`), each behind the middleware of
/// its group (``group(_:middleware:notFound:errorResponse:_:)``).
///
/// A literal segment wins over `{name}`: with `/items/new` declared, `/items/{id}` does not take
/// `/items/new`, whatever the method. A path that matches with another method gets `405` and an `Allow`
/// header; HEAD falls back to GET;
/// no match goes to the group's `notFound` (404 by default). Thrown errors are answered in the group's
/// error format (see ``Middleware``).
package struct Router: HTTPHandler {
    /// A route's body: answers on the channel, now or later, or throws.
    package typealias Body = @Sendable (HTTPRequest, RouteParameters, ReplyChannel) throws -> Void

    /// A route's check of a request's head, before its body is read: it throws to refuse the request, or
    /// gives what the request holds while it is handled (``HTTPRequest/lease``), such as a slot of its own.
    package typealias HeadCheck = @Sendable (HTTPRequest) throws -> (any Sendable & AnyObject)?

    /// The response for an error a route or middleware threw.
    package typealias ErrorResponse = @Sendable (any Error) -> HTTPResponse

    private struct Route: Sendable {
        /// nil: any method (the body checks it).
        let method: HTTPMethod?
        let segments: [Segment]
        let body: Body
        /// Index in `groups`.
        let group: Int
        /// The patterns of other routes that are literal where this one has `{name}`: the paths they match
        /// are theirs. Empty for almost every route, so matching costs nothing more.
        var shadowedBy: [[Segment]] = []
    }

    private struct Group: Sendable {
        let prefix: String
        let middleware: [any Middleware]
        let notFound: Body
        let errorResponse: ErrorResponse
    }

    /// One segment of a route pattern: bytes to match exactly, or `{name}`, which takes any one segment.
    private enum Segment: Sendable {
        case literal([UInt8])
        case parameter(String)
    }

    private var routes: [Route] = []
    /// The head checks of the routes that have one, by index in `routes` (kept apart: a route is copied
    /// for every request, and almost none has one).
    private var headChecks: [Int: HeadCheck] = [:]
    private var groups: [Group] = []

    package init() {}

    private mutating func add(
        _ method: HTTPMethod?, _ pattern: String, _ body: @escaping Body, admit: HeadCheck?, group: Int
    ) {
        let segments = pattern.utf8.split(separator: UInt8(ascii: "/")).map { bytes -> Segment in
            if bytes.first == UInt8(ascii: "{") && bytes.last == UInt8(ascii: "}") {
                return .parameter(String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self))
            }
            return .literal(Array(bytes))
        }
        var body = body
        if let admit {
            headChecks[routes.count] = admit
            // A request whose head was not checked (no body, so none was read) is checked now.
            body = { [body] request, parameters, reply in
                guard request.lease == nil else { return try body(request, parameters, reply) }
                var request = request
                request.lease = try admit(request)
                try body(request, parameters, reply)
            }
        }
        var route = Route(method: method, segments: segments, body: body, group: group)
        for index in routes.indices {
            if Self.isNarrower(segments, than: routes[index].segments) { routes[index].shadowedBy.append(segments) }
            if Self.isNarrower(routes[index].segments, than: segments) {
                route.shadowedBy.append(routes[index].segments)
            }
        }
        routes.append(route)
    }

    /// Whether `pattern` is literal at least once where `other` has `{name}` and matches a subset of its paths.
    private static func isNarrower(_ pattern: [Segment], than other: [Segment]) -> Bool {
        guard pattern.count == other.count else { return false }
        var narrower = false
        for (segment, otherSegment) in zip(pattern, other) {
            switch (segment, otherSegment) {
            case (.literal(let bytes), .literal(let otherBytes)) where bytes != otherBytes: return false
            case (.parameter, .literal): return false
            case (.literal, .parameter): narrower = true
            default: break
            }
        }
        return narrower
    }

    /// The route's parameters when it takes the path: it matches and no narrower route does.
    private static func take(_ route: Route, _ bytes: UnsafeBufferPointer<UInt8>, _ path: [Range<Int>])
        -> RouteParameters?
    {
        guard let parameters = match(route.segments, bytes, path) else { return nil }
        if route.shadowedBy.contains(where: { match($0, bytes, path) != nil }) { return nil }
        return parameters
    }

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
        precondition(!groups.contains { $0.prefix == prefix }, "two route groups under \(prefix)")
        groups.append(
            Group(
                prefix: prefix, middleware: middleware, notFound: notFound ?? Self.notFound,
                errorResponse: errorResponse))
        for route in group.routes {
            add(route.method, route.pattern, route.body, admit: route.admit, group: groups.count - 1)
        }
    }

    /// Whether `path` is `prefix` or below it.
    fileprivate static func isUnder(_ path: String, _ prefix: String) -> Bool {
        if prefix == "/" || prefix.isEmpty { return path.hasPrefix("/") }
        return path == prefix
            || (path.hasPrefix(prefix) && path.utf8.dropFirst(prefix.utf8.count).first == UInt8(ascii: "/"))
    }

    /// Every route as (method, pattern); a nil method takes every method.
    package var routePatterns: [(method: HTTPMethod?, pattern: String)] {
        routes.map { route in
            let texts = route.segments.map { segment in
                switch segment {
                case .literal(let bytes): String(decoding: bytes, as: UTF8.self)
                case .parameter(let name): "{\(name)}"
                }
            }
            return (route.method, "/" + texts.joined(separator: "/"))
        }
    }

    package func handle(_ request: HTTPRequest, reply: ReplyChannel) {
        var path = request.path
        // Every request is routed: the path is matched as bytes, its segments found once as offsets
        // (an array of Substrings per request cost more than the matching).
        let (found, matching) = path.withUTF8 { bytes -> ((Route, RouteParameters)?, [HTTPMethod]) in
            let segments = Self.segmentRanges(bytes)
            if let found = route(for: request.method, bytes, segments) {
                return ((routes[found.index], found.parameters), [])
            }
            var allowed: [HTTPMethod] = []
            for route in routes where Self.take(route, bytes, segments) != nil {
                if let method = route.method, !allowed.contains(method) { allowed.append(method) }
            }
            return (nil, allowed)
        }
        if let (route, parameters) = found {
            run(route.group, request, reply) { request, reply in try route.body(request, parameters, reply) }
            return
        }
        let group = groupIndex(for: request.path)
        var allowed = matching
        if allowed.isEmpty {
            let notFound = group.map { groups[$0].notFound } ?? Self.notFound
            run(group, request, reply) { request, reply in try notFound(request, RouteParameters(), reply) }
        } else {
            if allowed.contains(.get) && !allowed.contains(.head) { allowed.append(.head) }
            run(group, request, reply) { request, _ in throw Self.methodNotAllowed(request, allowed) }
        }
    }

    /// The head checks of the request's group (each middleware's ``Middleware/checkHead(_:)``, outermost
    /// first), then its route's own (``HeadCheck``); the first refusal is answered in the group's error
    /// format.
    package func admitHead(_ request: HTTPRequest) -> HeadAdmission {
        var path = request.path
        let route = path.withUTF8 { bytes in self.route(for: request.method, bytes, Self.segmentRanges(bytes))?.index }
        guard let group = route.map({ routes[$0].group }) ?? groupIndex(for: request.path) else {
            return .proceed(lease: nil)
        }
        do {
            for middleware in groups[group].middleware { try middleware.checkHead(request) }
            return .proceed(lease: try route.flatMap { headChecks[$0] }?(request))
        } catch {
            return .refuse(groups[group].errorResponse(error))
        }
    }

    /// Runs `body` behind the group's middleware.
    /// The first route for `method` that matches the path. Routes with another number of segments are
    /// passed over first: that test costs an integer comparison, where taking each route out of the array
    /// and comparing its method (a string) cost a tracking hit, whose route comes after the admin API's,
    /// 5k instructions.
    private func firstRoute(_ method: HTTPMethod, _ bytes: UnsafeBufferPointer<UInt8>, _ segments: [Range<Int>])
        -> (index: Int, parameters: RouteParameters)?
    {
        for index in routes.indices where routes[index].segments.count == segments.count {
            guard routes[index].method == nil || routes[index].method == method else { continue }
            if let parameters = Self.take(routes[index], bytes, segments) { return (index, parameters) }
        }
        return nil
    }

    /// The route a request goes to, for ``handle(_:reply:)`` and ``admitHead(_:)`` alike: the first for its
    /// method, or, for a HEAD, the first GET route when no route takes HEAD itself.
    private func route(for method: HTTPMethod, _ bytes: UnsafeBufferPointer<UInt8>, _ segments: [Range<Int>])
        -> (index: Int, parameters: RouteParameters)?
    {
        firstRoute(method, bytes, segments) ?? (method == .head ? firstRoute(.get, bytes, segments) : nil)
    }

    private func run(
        _ group: Int?, _ request: HTTPRequest, _ reply: ReplyChannel,
        _ body: (HTTPRequest, ReplyChannel) throws -> Void
    ) {
        // A path no group covers (none has the prefix `/`) gets the defaults, without middleware.
        guard let group else {
            return Self.chain([], Self.errorResponse, request, reply, body)
        }
        Self.chain(groups[group].middleware[...], groups[group].errorResponse, request, reply, body)
    }

    /// Runs the first middleware with the rest as its `next`; an error is answered on the channel the
    /// thrower was given.
    private static func chain(
        _ middleware: ArraySlice<any Middleware>, _ errorResponse: ErrorResponse, _ request: HTTPRequest,
        _ reply: ReplyChannel, _ body: (HTTPRequest, ReplyChannel) throws -> Void
    ) {
        do {
            guard let first = middleware.first else { return try body(request, reply) }
            try first.handle(request, reply: reply) { request, reply in
                chain(middleware.dropFirst(), errorResponse, request, reply, body)
            }
        } catch {
            reply.send(errorResponse(error))
        }
    }

    /// The group with the longest prefix covering `path`.
    private func groupIndex(for path: String) -> Int? {
        var best: Int?
        for (index, group) in groups.enumerated() where Self.isUnder(path, group.prefix) {
            if best.map({ groups[$0].prefix.utf8.count < group.prefix.utf8.count }) ?? true { best = index }
        }
        return best
    }

    /// The default answer for a path no route takes: `404` naming the path.
    package static let notFound: Body = { request, _, _ in
        throw HTTPError(.notFound, "no endpoint at \(request.path)")
    }

    /// `405` with `Allow`.
    private static func methodNotAllowed(_ request: HTTPRequest, _ allowed: [HTTPMethod]) -> HTTPError {
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        return HTTPError(
            .methodNotAllowed, "\(request.method) is not allowed on \(request.path); use \(list)",
            headers: [.allow: list])
    }

    /// The default error format: the error's own response, or a `500` naming it.
    package static func errorResponse(_ error: any Error) -> HTTPResponse {
        (error as? any HTTPResponseError)?.response
            ?? HTTPError(.internalServerError, "internal error: \(error)").response
    }

    /// Where the path's segments are, split on `/` (empty ones left out, as `split` does).
    private static func segmentRanges(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(8)
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
            if index > start { ranges.append(start..<index) }
            start = index + 1
        }
        return ranges
    }

    private static func match(_ pattern: [Segment], _ bytes: UnsafeBufferPointer<UInt8>, _ path: [Range<Int>])
        -> RouteParameters?
    {
        guard pattern.count == path.count else { return nil }
        var parameters = RouteParameters()
        for (expected, range) in zip(pattern, path) {
            let actual = UnsafeBufferPointer(rebasing: bytes[range])
            switch expected {
            case .literal(let literal):
                // Byte by byte by index: the generic `elementsEqual` cost 180 instructions a segment.
                guard literal.count == actual.count,
                    literal.withUnsafeBufferPointer({ literal in
                        literal.indices.allSatisfy { literal[$0] == actual[$0] }
                    })
                else { return nil }
            case .parameter(let name):
                guard let decoded = PercentEncoding.decode(Substring(decoding: actual, as: UTF8.self)) else {
                    return nil
                }
                parameters[name] = decoded
            }
        }
        return parameters
    }
}

/// A set of routes under one path prefix that share middleware (and the answer for a path under the prefix
/// that no route takes). Build it in ``Router/group(_:middleware:notFound:errorResponse:_:)``.
package struct RouteGroup {
    /// `/_mock`; `/` is every path that no other group's prefix covers.
    package let prefix: String
    fileprivate var routes: [(method: HTTPMethod?, pattern: String, body: Router.Body, admit: Router.HeadCheck?)] = []

    fileprivate init(prefix: String) {
        self.prefix = prefix
    }

    /// Adds a route; `method` nil takes every method. `pattern` is the whole path, under the prefix;
    /// segments in braces capture one segment.
    package mutating func add(_ method: HTTPMethod?, _ pattern: String, _ body: @escaping Router.Body) {
        add(method, pattern, admit: nil, body)
    }

    /// Adds a route whose requests `admit` checks first: on the head, before a large body is read, when
    /// the server asks (``Router/admitHead(_:)``), else just before `body` runs.
    package mutating func add(
        _ method: HTTPMethod?, _ pattern: String, admit: Router.HeadCheck?, _ body: @escaping Router.Body
    ) {
        precondition(Router.isUnder(pattern, prefix), "\(pattern) is not under the group's prefix \(prefix)")
        routes.append((method, pattern, body, admit))
    }

    /// Adds a route whose body answers at once with a response (or throws).
    package mutating func add(
        _ method: HTTPMethod?, _ pattern: String,
        respond: @escaping @Sendable (HTTPRequest, RouteParameters) throws -> HTTPResponse
    ) {
        add(method, pattern) { request, parameters, reply in reply.send(try respond(request, parameters)) }
    }

    /// Adds a route without path parameters whose body answers at once with a response (or throws).
    package mutating func add(
        _ method: HTTPMethod?, _ pattern: String,
        respond: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse
    ) {
        add(method, pattern) { request, _, reply in reply.send(try respond(request)) }
    }
}
