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

    /// Bytes of a body the journal keeps.
    package static let bodyLimit = 64 * 1024
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
    /// Pass as `after` to get the next page; nil when this page is the last.
    package var nextCursor: Int64?
}

extension JournalEntry {
    /// The entry as JSON, the same text `JSONText.compact` writes (the event stream sends one per request).
    var json: [UInt8] {
        var object = JSONObjectWriter(capacity: 512 + body.utf8.count)
        object.string("appKey", appKey)
        object.string("body", body)
        object.string("bodyEncoding", bodyEncoding)
        object.bool("bodyTruncated", bodyTruncated)
        object.number("durationMs", durationMs)
        object.string("endpoint", endpoint)
        object.stringArrays("headers", headers)
        object.integer("id", id)
        object.string("method", method)
        object.string("reason", reason)
        object.string("receivedAt", receivedAt)
        object.string("remoteAddress", remoteAddress)
        object.integer("status", status)
        object.string("target", target)
        return object.finish()
    }
}
