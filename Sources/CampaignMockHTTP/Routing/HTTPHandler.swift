import Synchronization

/// Something that answers HTTP requests. It gets a value and a ``ReplyChannel``; it never sees a socket.
///
/// A handler may reply on the calling thread or later from any thread (after a database commit, a delay
/// or a long poll), but exactly once.
package protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest, reply: ReplyChannel)

    /// Decides on a request's head (no body yet) whether its body may be read: asked before a body is
    /// spooled to a file (``BodySpooling``) or `100 Continue` is sent, never for the other requests. A
    /// refused request is answered and its connection closed without reading the body. By default every
    /// head proceeds.
    func admitHead(_ request: HTTPRequest) -> HeadAdmission
}

extension HTTPHandler {
    package func admitHead(_ request: HTTPRequest) -> HeadAdmission { .proceed(lease: nil) }
}

/// What ``HTTPHandler/admitHead(_:)`` decided.
package enum HeadAdmission: Sendable {
    /// Read the body; the request carries `lease` (``HTTPRequest/lease``) to its handler.
    case proceed(lease: (any Sendable & AnyObject)?)
    /// Answer this and close, without reading the body.
    case refuse(HTTPResponse)
}

/// What the connection does with an exchange.
package enum HTTPReply: Sendable {
    /// Send this response.
    case response(HTTPResponse)
    /// Close the connection without answering.
    case drop
    /// Abort the connection with a TCP RST.
    case reset
    /// Send this response's head, then the stream's chunks as they are written (chunked transfer coding).
    /// The head's body is ignored; the connection closes when the stream ends.
    case stream(HTTPResponse, ResponseStream)
}

/// The one-shot way back to the client for one request. Safe to use from any thread.
///
/// If a handler lets it go without replying, the client gets a 500 instead of hanging.
package final class ReplyChannel: Sendable {
    private let deliver: @Sendable (HTTPReply) -> Void
    private let replied = Atomic<Bool>(false)

    /// - Parameter deliver: called once with the reply.
    package init(_ deliver: @escaping @Sendable (HTTPReply) -> Void) {
        self.deliver = deliver
    }

    deinit {
        if !replied.load(ordering: .acquiring) {
            deliver(.response(HTTPError(.internalServerError, "the handler did not answer").response))
        }
    }

    /// Sends `reply`; later calls are ignored.
    package func send(_ reply: HTTPReply) {
        guard replied.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        deliver(reply)
    }

    /// Sends a response.
    package func send(_ response: HTTPResponse) {
        send(.response(response))
    }
}
