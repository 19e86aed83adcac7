/// One request as the journal keeps it: what arrived, what was answered, and why.
package struct JournalEntry: Sendable, Codable, Equatable {
    /// Increasing id; also the paging cursor.
    package var id: Int64
    /// When the request was complete, ISO 8601 UTC.
    package var receivedAt: String
    package var method: String
    /// Path and query as sent.
    package var target: String
    /// The endpoint family: `registration-ios`, `registration-android`, `tracking`, `soap`, `health`, `unknown`.
    package var endpoint: String
    package var headers: [[String]]
    /// The body as UTF-8 text, or base64 when it is not UTF-8 (`bodyEncoding` says which).
    package var body: String
    package var bodyEncoding: String
    /// Whether the body was longer than the journal keeps (``JournalEntry/bodyLimit`` bytes).
    package var bodyTruncated: Bool
    package var status: Int
    /// Why the request was rejected, for failures.
    package var reason: String?
    /// The integration key the request named, if any.
    package var appKey: String?
    package var durationMs: Double
    package var remoteAddress: String?
    /// What was answered; nil for entries journaled before the journal kept answers.
    package var response: JournalResponse?

    /// Bytes of a body the journal keeps.
    package static let bodyLimit = 64 * 1024

    package init(
        id: Int64, receivedAt: String, method: String, target: String, endpoint: String, headers: [[String]],
        body: String, bodyEncoding: String, bodyTruncated: Bool, status: Int, reason: String? = nil,
        appKey: String? = nil, durationMs: Double, remoteAddress: String? = nil, response: JournalResponse? = nil
    ) {
        self.id = id
        self.receivedAt = receivedAt
        self.method = method
        self.target = target
        self.endpoint = endpoint
        self.headers = headers
        self.body = body
        self.bodyEncoding = bodyEncoding
        self.bodyTruncated = bodyTruncated
        self.status = status
        self.reason = reason
        self.appKey = appKey
        self.durationMs = durationMs
        self.remoteAddress = remoteAddress
        self.response = response
    }
}

/// The answer a journaled request got (its status is the entry's `status`).
package struct JournalResponse: Sendable, Codable, Equatable {
    /// The headers the endpoint set (not `Date`, `Server` or `Content-Length`, which every answer has).
    package var headers: [[String]]
    package var body: String
    package var bodyEncoding: String
    package var bodyTruncated: Bool

    package init(
        headers: [[String]], body: String, bodyEncoding: String, bodyTruncated: Bool
    ) {
        self.headers = headers
        self.body = body
        self.bodyEncoding = bodyEncoding
        self.bodyTruncated = bodyTruncated
    }
}

/// A page of the journal.
package struct JournalPage: Sendable, Codable, Equatable {
    package var requests: [JournalEntry]
    /// Entries dropped because the journal was full, since the last clear.
    package var dropped: Int64
    /// Entries matching the filter in the whole journal (not only on this page); left out where a
    /// reader did not ask for the count.
    package var total: Int?
    /// Pass as `before` (newest-first pages) or `after` (oldest-first pages) to get the next page; nil
    /// when this page is the last.
    package var nextCursor: Int64?

    package init(
        requests: [JournalEntry], dropped: Int64, total: Int? = nil, nextCursor: Int64? = nil
    ) {
        self.requests = requests
        self.dropped = dropped
        self.total = total
        self.nextCursor = nextCursor
    }
}
