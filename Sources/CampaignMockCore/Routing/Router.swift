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
        let segments: [Segment]
        let body: Body
    }

    /// One segment of a route pattern: bytes to match exactly, or `{name}`, which takes any one segment.
    private enum Segment: Sendable {
        case literal([UInt8])
        case parameter(String)
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
        let segments = pattern.utf8.split(separator: UInt8(ascii: "/")).map { bytes -> Segment in
            if bytes.first == UInt8(ascii: "{") && bytes.last == UInt8(ascii: "}") {
                return .parameter(String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self))
            }
            return .literal(Array(bytes))
        }
        routes.append(Route(method: method, segments: segments, body: body))
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
            let methods: [HTTPMethod] = request.method == .head ? [.head, .get] : [request.method]
            for method in methods {
                for route in routes where route.method == nil || route.method == method {
                    if let parameters = Self.match(route.segments, bytes, segments) { return ((route, parameters), []) }
                }
            }
            var allowed: [HTTPMethod] = []
            for route in routes where Self.match(route.segments, bytes, segments) != nil {
                if let method = route.method, !allowed.contains(method) { allowed.append(method) }
            }
            return (nil, allowed)
        }
        if let (route, parameters) = found {
            route.body(request, parameters, reply)
            return
        }
        var allowed = matching
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
                guard literal.count == actual.count, literal.elementsEqual(actual) else { return nil }
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
