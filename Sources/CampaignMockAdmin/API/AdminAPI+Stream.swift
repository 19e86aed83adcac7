import CampaignMockHTTP
import CampaignMockModel
import CampaignMockRuntime

/// `GET /_mock/stream`: Server-Sent Events (see ``EventHub``).
extension AdminAPI {
    /// Filters as in `/_mock/wait`, by the facts the events carry.
    private static let streamFilters = ChangeFact.streamFilters.map(\.name)

    func openStream(_ request: HTTPRequest, _ parameters: RouteParameters, _ reply: ReplyChannel) throws {
        let query = try AdminResponse.query(request)
        try AdminResponse.allowOnly(query, Self.streamFilters + ["type", "since", "access_token"])
        var filter = EventHub.Filter()
        if let types = query["type"] {
            let selectable = StreamEventType.allCases.filter(\.isSelectable)
            for name in types.split(separator: ",").map(String.init) {
                guard let type = StreamEventType(rawValue: name), type.isSelectable else {
                    let known = selectable.map(\.rawValue).joined(separator: ", ")
                    throw AdminError(.badRequest, "type '\(name)' is not one of \(known)")
                }
                filter.types.insert(type)
            }
        }
        for fact in ChangeFact.streamFilters { filter.facts[fact] = query[fact.name] }
        // Resume: the browser sends Last-Event-ID by itself when it reconnects; ?since= for others (an
        // event id, or a mark: the events after it).
        let lastEventID = request.headers[HTTPHeaderName(rawValue: "Last-Event-ID")]
        let cursor = lastEventID ?? query["since"]
        var after: UInt64?
        if lastEventID == nil, let mark = try mark(since: query["since"]) {
            after = mark.streamEvent
        } else if let cursor {
            guard let value = UInt64(cursor.trimmingASCIISpaces()) else {
                throw AdminError(.badRequest, "since (or Last-Event-ID) must be an event id or a mark, got '\(cursor)'")
            }
            after = value
        }
        let events = stream.subscribe(filter: filter, after: after)
        let head = HTTPResponse(
            status: .ok,
            headers: [
                .contentType: "text/event-stream; charset=utf-8", HTTPHeaderName(rawValue: "Cache-Control"): "no-cache",
                HTTPHeaderName(rawValue: "X-Accel-Buffering"): "no",
            ])
        reply.send(.stream(head, events))
    }
}
