import CampaignMockHTTP
import Synchronization

/// What one waiter has found so far, and where its next look starts, so each look reads only the rows
/// committed since the previous one. Looks happen on the wait registry's queue; the mutex makes the
/// hand-over explicit.
package final class WaitProgress<Item: Sendable>: Sendable {
    /// Reads the matching items with ids above `after` (at most `limit`) and returns them with the
    /// newest id it considered.
    package typealias Look = @Sendable (_ after: Int64, _ limit: Int) throws -> (items: [Item], upTo: Int64)

    private let state: Mutex<(cursor: Int64, found: [Item])>

    package init(cursor: Int64) {
        state = Mutex((cursor, []))
    }

    /// Looks once more and returns everything found so far (at most `wanted`).
    ///
    /// A look returning fewer than it may has seen every row up to `upTo`; one returning as many as it
    /// may has filled the wait, so the cursor no longer matters.
    package func advance(wanted: Int, _ look: Look) throws -> [Item] {
        let (cursor, count) = state.withLock { ($0.cursor, $0.found.count) }
        guard count < wanted else { return state.withLock { $0.found } }
        let (items, upTo) = try look(cursor, wanted - count)
        return state.withLock { state in
            state.found += items
            state.cursor = upTo
            return state.found
        }
    }
}
