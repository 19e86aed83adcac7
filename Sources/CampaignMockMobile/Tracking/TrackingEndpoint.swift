package import CampaignMockHTTP
package import CampaignMockRuntime
package import CampaignMockStorage
import CampaignMockSystem
import Synchronization

/// `GET /r/?id=h<messageId>,<deliveryId>,<tag>` (docs/product.md §4): decode, store, answer `200` with no body.
package struct TrackingEndpoint: Sendable {
    let store: Store
    /// `--strict-tracking`: `404` for message ids the mock never issued.
    let strict: Bool

    /// A hit as read once per request, for both the fault rules and the answer: its `id`, and the issued
    /// message it refers to, looked up at most once (a rule naming an app or a token and
    /// `--strict-tracking` both ask).
    package final class Hit: Sendable {
        /// The `id` parameter, or why it cannot be read.
        let id: Result<TrackingID, HTTPError>
        private let store: Store
        private let message = Mutex<IssuedMessage??>(nil)

        init(_ request: HTTPRequest, store: Store) {
            self.store = store
            id = Result { () throws(HTTPError) in try Self.id(request) }
        }

        private static func id(_ request: HTTPRequest) throws(HTTPError) -> TrackingID {
            guard let items = PercentEncoding.queryItems(request.query) else {
                throw HTTPError(.badRequest, "malformed percent-encoding in the query string")
            }
            // Counted where they lie (a filtered array of them was made for every hit).
            var ids = 0
            var id: String?
            for item in items where item.name == "id" {
                ids += 1
                id = item.value
            }
            guard ids == 1, let raw = id else {
                throw HTTPError(.badRequest, ids == 0 ? "missing id parameter" : "id parameter appears more than once")
            }
            do {
                return try TrackingID(parsing: raw)
            } catch {
                throw HTTPError(.badRequest, error.message)
            }
        }

        /// The issued message the id refers to, as last committed; nil for none (or an unreadable id).
        func issuedMessage() throws -> IssuedMessage? {
            if let known = message.withLock({ $0 }) { return known }
            guard case .success(let id) = id else { return nil }
            let found = try store.read { try $0.issuedMessage(for: id) }
            message.withLock { $0 = .some(found) }
            return found
        }

        /// What ``issuedMessage()`` found, if it was asked (nil inside: no message): the write then does
        /// not look again.
        var lookedUp: IssuedMessage?? { message.withLock { $0 } }
    }

    package func read(_ request: HTTPRequest) -> Hit {
        Hit(request, store: store)
    }

    /// The app key and token of the device an issued message went to, for fault rules.
    package func identify(_ hit: Hit) -> (appKey: String?, token: String?) {
        guard let message = try? hit.issuedMessage() else { return (nil, nil) }
        return (message.integrationKey, message.registrationToken)
    }

    package func decide(_ request: HTTPRequest, _ hit: Hit) throws -> EndpointResult {
        guard request.method == .get || request.method == .head else {
            throw HTTPError(.methodNotAllowed, "Tracking takes GET", headers: [.allow: "GET, HEAD"])
        }
        let id = try hit.id.get()
        if strict, try hit.issuedMessage() == nil {
            throw HTTPError(.notFound, "message id in \(id.raw) was never issued by this mock (--strict-tracking)")
        }
        let userAgent = request.headers[.userAgent]
        let remote = request.remoteAddress?.host
        let lookedUp = hit.lookedUp
        return EndpointResult(response: HTTPResponse(status: .ok)) { transaction in
            try transaction.recordHit(
                id, userAgent: userAgent, remoteAddress: remote, receivedAt: Clock.wallClockMicroseconds(),
                lookedUp: lookedUp)
        }
    }

    package init(
        store: Store, strict: Bool
    ) {
        self.store = store
        self.strict = strict
    }
}
