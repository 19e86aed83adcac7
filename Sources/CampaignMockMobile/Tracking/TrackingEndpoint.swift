package import CampaignMockCore
package import CampaignMockRuntime
package import CampaignMockStorage

/// `GET /r/?id=h<messageId>,<deliveryId>,<tag>` (docs/product.md §4): decode, store, answer `200` with no body.
package struct TrackingEndpoint: Sendable {
    let store: Store
    /// `--strict-tracking`: `404` for message ids the mock never issued.
    let strict: Bool

    /// The app key and token of the device an issued message went to, for fault rules.
    package func identify(_ request: HTTPRequest) -> (appKey: String?, token: String?) {
        guard let raw = PercentEncoding.queryItems(request.query)?.first(where: { $0.name == "id" })?.value,
            let id = try? TrackingID(parsing: raw),
            let owner = try? store.read({ try $0.messageOwner(for: id) })
        else { return (nil, nil) }
        return owner
    }

    package func decide(_ request: HTTPRequest) throws -> EndpointResult {
        guard request.method == .get || request.method == .head else {
            throw HTTPError(.methodNotAllowed, "Tracking takes GET", headers: [.allow: "GET, HEAD"])
        }
        guard let items = PercentEncoding.queryItems(request.query) else {
            throw HTTPError(.badRequest, "malformed percent-encoding in the query string")
        }
        let ids = items.filter { $0.name == "id" }
        guard ids.count == 1, let raw = ids.first?.value else {
            throw HTTPError(.badRequest, ids.isEmpty ? "missing id parameter" : "id parameter appears more than once")
        }
        let id: TrackingID
        do {
            id = try TrackingID(parsing: raw)
        } catch {
            throw HTTPError(.badRequest, error.message)
        }
        if strict, try store.read({ try $0.issuedMessage(for: id) }) == nil {
            throw HTTPError(.notFound, "message id in \(raw) was never issued by this mock (--strict-tracking)")
        }
        let userAgent = request.headers[.userAgent]
        let remote = request.remoteAddress?.host
        return EndpointResult(response: HTTPResponse(status: .ok)) { transaction in
            try transaction.recordHit(
                id, userAgent: userAgent, remoteAddress: remote, receivedAt: Clock.wallClockMicroseconds())
        }
    }

    package init(
        store: Store, strict: Bool
    ) {
        self.store = store
        self.strict = strict
    }
}
