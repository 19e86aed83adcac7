import CampaignMockSystem
import Synchronization

/// A point in the server's traffic that a test takes before it acts (`POST /_mock/mark`), and counts from
/// after (`since=m…` on `/_mock/wait`, `/_mock/events`, `/_mock/requests`, `/_mock/checks`, the stream).
/// It holds the newest id of each kind of stored item when it was handed out, so it is exact to the
/// request and needs no clock on the test's side.
package struct Mark: Sendable, Equatable {
    /// `m` and digits: never a bare number or a time, so it is not mistaken for what `since` took before.
    package let name: String
    package let registration: Int64
    package let event: Int64
    /// The newest journaled request (a finding's evidence is requests).
    package let request: Int64
    /// The newest stream event id.
    package let streamEvent: UInt64
    /// When it was handed out (microseconds since 1970): for findings that rest on no request.
    package let at: Int64
    fileprivate let epoch: Int
}

/// A `since` that is not a mark the server can count from, with why.
package struct MarkRefusal: Error, Sendable {
    package let message: String
}

/// The marks handed out by this run of the server, in memory (the newest ``limit``). A reset or a state
/// import makes every mark taken before it unusable: what it counted from is gone (ids may start again).
package final class MarkRegistry: Sendable {
    private struct State {
        /// The next mark's number: the milliseconds of the server's start, then one more each time, so a
        /// mark of an earlier run is not taken for one of this run.
        var next: UInt64
        /// The first mark's number.
        let first: UInt64
        var marks: [UInt64: Mark] = [:]
        var epoch = 0
        /// What ended the latest epoch: `the reset at …`.
        var lastClearing = ""
    }

    package static let limit = 100_000
    private let state: Mutex<State>

    package init(now: Int64 = Clock.wallClockMicroseconds()) {
        let first = UInt64(max(now, 0) / 1000)
        state = Mutex(State(next: first, first: first))
    }

    /// Whether `text` has a mark's form: `m` and 1 to 19 digits.
    package static func isMark(_ text: String) -> Bool {
        let digits = text.utf8.dropFirst()
        return text.utf8.first == UInt8(ascii: "m") && (1...19).contains(digits.count)
            && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Which clearing the marks handed out now belong to: read before the cursors of a new mark, so that a
    /// reset between the two leaves that mark refused rather than counting from the rows it removed.
    package var epoch: Int { state.withLock { $0.epoch } }

    /// A new mark at these cursors, read after ``epoch`` gave `epoch`.
    package func add(
        registration: Int64, event: Int64, request: Int64, streamEvent: UInt64, at: Int64, epoch: Int
    ) -> Mark {
        state.withLock { state in
            let number = state.next
            state.next += 1
            let mark = Mark(
                name: "m\(number)", registration: registration, event: event, request: request,
                streamEvent: streamEvent, at: at, epoch: epoch)
            state.marks[number] = mark
            if state.marks.count > Self.limit { state.marks[number - UInt64(Self.limit)] = nil }
            return mark
        }
    }

    /// Every mark handed out so far no longer counts: `what` (`the reset at …`) removed what it counted from.
    package func invalidate(_ what: String) {
        state.withLock { state in
            state.epoch += 1
            state.lastClearing = what
        }
    }

    /// The mark `text` names, or why it cannot be used.
    package func mark(_ text: String) throws(MarkRefusal) -> Mark {
        guard Self.isMark(text), let number = UInt64(text.dropFirst()) else {
            throw MarkRefusal(message: "'\(text)' is not a mark (POST /_mock/mark hands out m<digits>)")
        }
        return try state.withLock { state throws(MarkRefusal) in
            guard let mark = state.marks[number] else {
                if number >= state.first && number < state.next {
                    throw MarkRefusal(
                        message: "mark \(text) is no longer kept (the server keeps its newest \(Self.limit) marks)")
                }
                throw MarkRefusal(
                    message: "mark \(text) was not handed out by this run of the server (marks are kept in its "
                        + "memory, and a restart forgets them): take a new one with POST /_mock/mark")
            }
            guard mark.epoch == state.epoch else {
                throw MarkRefusal(
                    message: "mark \(text) was taken before \(state.lastClearing), which removed what it counts "
                        + "from: take a new mark after it (POST /_mock/mark)")
            }
            return mark
        }
    }
}
