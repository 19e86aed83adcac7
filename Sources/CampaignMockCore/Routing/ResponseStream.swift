import Synchronization

/// The body of a streamed response (Server-Sent Events, say), written by a producer from any thread after
/// the handler replied with ``HTTPReply/stream(_:_:)``. The connection sends it with chunked transfer
/// coding, one chunk per ``write(_:)``.
///
/// A reader slower than the producer is not given unbounded memory: when the bytes waiting for its socket
/// would pass `bufferLimit`, the connection sends `overflowChunk` (a last message saying so) and closes.
/// `onClose` runs once when the stream ends for any reason: finished, overflowed, the client went away, or
/// the server shut down.
package final class ResponseStream: Sendable {
    package enum Event: Sendable {
        case chunk([UInt8])
        case finish([UInt8])
    }

    private struct State {
        var sink: (@Sendable (Event) -> Void)?
        var pending: [Event] = []
        var closed = false
        var onClose: (@Sendable () -> Void)?
    }

    package let bufferLimit: Int
    package let overflowChunk: [UInt8]
    private let state: Mutex<State>

    package init(bufferLimit: Int = 1 << 20, overflowChunk: [UInt8] = [], onClose: @escaping @Sendable () -> Void = {})
    {
        self.bufferLimit = bufferLimit
        self.overflowChunk = overflowChunk
        state = Mutex(State(onClose: onClose))
    }

    /// Whether the stream has ended; writing then does nothing.
    package var isClosed: Bool { state.withLock { $0.closed } }

    /// Sends `bytes` as one chunk. Returns false when the stream has ended.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        send(.chunk(bytes))
    }

    /// Sends `bytes` (if any) and ends the stream; the connection then closes.
    package func finish(_ bytes: [UInt8] = []) {
        _ = send(.finish(bytes))
    }

    private func send(_ event: Event) -> Bool {
        let (sink, accepted) = state.withLock { state -> ((@Sendable (Event) -> Void)?, Bool) in
            guard !state.closed else { return (nil, false) }
            if case .finish = event { state.closed = true }
            guard let sink = state.sink else {
                state.pending.append(event)
                return (nil, true)
            }
            return (sink, true)
        }
        sink?(event)
        return accepted
    }

    /// Connects the stream to its connection; what was written before goes first, in order.
    package func attach(_ sink: @escaping @Sendable (Event) -> Void) {
        let pending = state.withLock { state in
            state.sink = sink
            defer { state.pending.removeAll() }
            return state.pending
        }
        for event in pending { sink(event) }
    }

    /// Marks the stream ended (by the connection) and runs `onClose` once.
    package func markClosed() {
        let onClose = state.withLock { state in
            state.closed = true
            defer { state.onClose = nil }
            return state.onClose
        }
        onClose?()
    }
}
