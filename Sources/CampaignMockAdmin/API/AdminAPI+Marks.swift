import CampaignMockChecks
import CampaignMockHTTP
import CampaignMockModel
import CampaignMockRuntime
import CampaignMockStorage
import CampaignMockSystem

/// `POST /_mock/mark`: a point to count from that a test takes before it acts (``Mark``).
extension AdminAPI {
    func registerMarks(on group: inout RouteGroup) {
        group.add(.post, "/_mock/mark", respond: takeMark)
    }

    /// `{"mark":"m…"}`, once every write answered before it is in the store and in the checks: what the
    /// checks find later in a request that came before it is not counted since it.
    private func takeMark(_ request: HTTPRequest) throws -> HTTPResponse {
        try AdminResponse.allowOnly(try AdminResponse.query(request), [])
        let epoch = marks.epoch
        // Through the writer's queue, not a reader: every batch queued before this one has then been committed
        // and handed to the sink (the checks' feed, the journal), which a committed row alone does not promise.
        let (registration, event, requestID) = try store.writeAndWait { transaction in
            let reader = transaction.reader
            return (try reader.lastRegistrationID(), try reader.lastEventID(), reader.lastJournalID())
        }
        checks.settle()
        let mark = marks.add(
            registration: registration, event: event, request: requestID, streamEvent: stream.mark(),
            at: Clock.wallClockMicroseconds(), epoch: epoch)
        return AdminResponse.json(.ok, ["mark": mark.name])
    }

    /// The mark a `since` names, answered as `400` with why when it cannot be counted from; nil when
    /// `since` is not a mark (a time, milliseconds, `0`).
    func mark(since text: String?) throws -> Mark? {
        guard let text, text.utf8.first == UInt8(ascii: "m") else { return nil }
        do {
            return try marks.mark(text)
        } catch {
            throw AdminError(.badRequest, "since: \(error.message)")
        }
    }

    /// A reset or an import removed what the marks taken before it count from.
    func marksEnd(_ what: String) {
        marks.invalidate("\(what) at \(RFC3339.string(microsecondsSince1970: Clock.wallClockMicroseconds()))")
    }
}
