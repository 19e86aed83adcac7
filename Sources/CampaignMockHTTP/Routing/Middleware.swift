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

    /// Checks a request on its head alone, before its body is read (``HTTPHandler/admitHead(_:)``): a
    /// throw refuses it at once, and its connection closes without reading the body. Access rules that
    /// need no body belong here as well as in ``handle(_:reply:next:)``, which still runs on the complete
    /// request. By default nothing is checked.
    func checkHead(_ request: HTTPRequest) throws
}

extension Middleware {
    package func checkHead(_ request: HTTPRequest) throws {}
}

/// The rest of a middleware chain: the next middleware, or the route. It answers its errors itself.
package typealias MiddlewareNext = (HTTPRequest, ReplyChannel) -> Void
