import CampaignMockCore

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
}

/// The answer a journaled request got (its status is the entry's `status`).
package struct JournalResponse: Sendable, Codable, Equatable {
    /// The headers the endpoint set (not `Date`, `Server` or `Content-Length`, which every answer has).
    package var headers: [[String]]
    package var body: String
    package var bodyEncoding: String
    package var bodyTruncated: Bool
}

/// Which journal entries a listing or a wait returns.
package struct JournalFilter: Sendable, Equatable {
    package var endpoint: String?
    package var status: Int?
    package var appKey: String?
    /// Microseconds since 1970; entries at or after it.
    package var since: Int64?

    package init(endpoint: String? = nil) {
        self.endpoint = endpoint
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
}

extension JournalRecord {
    /// The summary of entry `id` that the event stream sends (`/_mock/requests/{id}` has the rest): what a
    /// list shows, without headers and bodies, so that an open console costs a request little. Written
    /// directly (one per request), with the values `JournalEntry(id:record:)` has for the same keys.
    func summaryJSON(id: Int64) -> [UInt8] {
        var object = JSONObjectWriter(capacity: 256)
        object.string("appKey", appKey)
        object.milliseconds("durationMs", micros: durationMicros)
        object.string("endpoint", endpoint)
        object.integer("id", id)
        object.string("method", method)
        object.string("reason", reason)
        object.string("receivedAt", HTTPDate.iso8601(microsecondsSince1970: receivedAtMicros))
        object.integer("status", status)
        object.string("target", target)
        return object.finish()
    }
}
