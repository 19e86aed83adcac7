import CampaignMockSystem
import Dispatch
import Synchronization

/// The body of a streamed response (Server-Sent Events, say), written by a producer from any thread after
/// the handler replied with ``HTTPReply/stream(_:_:)``. The connection sends it with chunked transfer
/// coding, one chunk per ``write(_:)``.
///
/// A reader slower than the producer is not given unbounded memory: when the bytes waiting for its socket
/// would pass `bufferLimit`, the connection sends `overflowChunk` (a last message saying so) and closes.
/// A stream made with `waitsForReader` (a download, which must arrive whole) makes the producer's
/// ``write(_:)`` wait instead, until the reader has taken enough.
/// `onClose` runs once when the stream ends for any reason: finished, overflowed, the client went away, or
/// the server shut down.
package final class ResponseStream: Sendable {
    package enum Part: Sendable {
        case chunk([UInt8])
        case finish([UInt8])
        /// The producer failed midway: the connection is reset, so the reader cannot take what it got for
        /// a whole body.
        case abort
    }

    private struct State {
        var sink: (@Sendable (Part) -> Void)?
        var pending: [Part] = []
        var closed = false
        var onClose: (@Sendable () -> Void)?
        /// Bytes written and not yet sent, as far as the connection last said (``noteUnsent(_:)``) plus
        /// what was written since.
        var unsent = 0
    }

    package let bufferLimit: Int
    package let overflowChunk: [UInt8]
    /// Whether ``write(_:)`` waits for a slow reader rather than the stream overflowing.
    package let waitsForReader: Bool
    private let state: Mutex<State>
    private let room = DispatchSemaphore(value: 0)

    package init(
        bufferLimit: Int = 1 << 20, overflowChunk: [UInt8] = [], waitsForReader: Bool = false,
        onClose: @escaping @Sendable () -> Void = {}
    ) {
        self.bufferLimit = bufferLimit
        self.overflowChunk = overflowChunk
        self.waitsForReader = waitsForReader
        state = Mutex(State(onClose: onClose))
    }

    /// Whether the stream has ended; writing then does nothing.
    package var isClosed: Bool { state.withLock { $0.closed } }

    /// Sends `bytes` as one chunk. Returns false when the stream has ended. With `waitsForReader`, first
    /// waits while more than `bufferLimit` bytes are on their way.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        while waitsForReader {
            let (full, closed) = state.withLock { ($0.unsent > bufferLimit, $0.closed) }
            if !full || closed { break }
            _ = room.wait(timeout: .now() + .milliseconds(100))
        }
        return send(.chunk(bytes))
    }

    /// Ends the stream as failed: the reader's connection is reset.
    package func abort() {
        _ = send(.abort)
    }

    /// The connection says how many bytes it still has to send; a waiting ``write(_:)`` goes on once
    /// they are within `bufferLimit`.
    package func noteUnsent(_ bytes: Int) {
        guard waitsForReader else { return }
        let wake = state.withLock { state in
            defer { state.unsent = bytes }
            return state.unsent > bufferLimit && bytes <= bufferLimit
        }
        if wake { room.signal() }
    }

    /// Sends `bytes` (if any) and ends the stream; the connection then closes.
    package func finish(_ bytes: [UInt8] = []) {
        _ = send(.finish(bytes))
    }

    private func send(_ event: Part) -> Bool {
        let (sink, accepted) = state.withLock { state -> ((@Sendable (Part) -> Void)?, Bool) in
            guard !state.closed else { return (nil, false) }
            switch event {
            case .chunk(let bytes): state.unsent += bytes.count
            case .finish, .abort: state.closed = true
            }
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
    package func attach(_ sink: @escaping @Sendable (Part) -> Void) {
        let pending = state.withLock { state in
            state.sink = sink
            defer { state.pending.removeAll() }
            return state.pending
        }
        for event in pending { sink(event) }
    }

    /// Marks the stream ended (by the connection) and runs `onClose` once.
    package func markClosed() {
        defer { room.signal() }  // a waiting writer learns the stream ended
        let onClose = state.withLock { state in
            state.closed = true
            defer { state.onClose = nil }
            return state.onClose
        }
        onClose?()
    }
}
