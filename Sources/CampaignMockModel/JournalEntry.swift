/// One request as the journal keeps it: what arrived, what was answered, and why.
public struct JournalEntry: Sendable, Codable, Equatable {
    /// Increasing id; also the paging cursor.
    public var id: Int64
    /// When the request was complete, ISO 8601 UTC.
    public var receivedAt: String
    public var method: String
    /// Path and query as sent.
    public var target: String
    /// The endpoint family: `registration-ios`, `registration-android`, `tracking`, `soap`, `health`, `unknown`.
    public var endpoint: String
    public var headers: [[String]]
    /// The body as UTF-8 text, or base64 when it is not UTF-8 (`bodyEncoding` says which).
    public var body: String
    public var bodyEncoding: String
    /// Whether the body was longer than the journal keeps (``JournalEntry/bodyLimit`` bytes).
    public var bodyTruncated: Bool
    public var status: Int
    /// Why the request was rejected, for failures.
    public var reason: String?
    /// The integration key the request named, if any.
    public var appKey: String?
    public var durationMs: Double
    public var remoteAddress: String?
    /// What was answered; nil for entries journaled before the journal kept answers.
    public var response: JournalResponse?

    /// Bytes of a body the journal keeps.
    public static let bodyLimit = 64 * 1024

    public init(
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
public struct JournalResponse: Sendable, Codable, Equatable {
    /// The headers the endpoint set (not `Date`, `Server` or `Content-Length`, which every answer has).
    public var headers: [[String]]
    public var body: String
    public var bodyEncoding: String
    public var bodyTruncated: Bool

    public init(
        headers: [[String]], body: String, bodyEncoding: String, bodyTruncated: Bool
    ) {
        self.headers = headers
        self.body = body
        self.bodyEncoding = bodyEncoding
        self.bodyTruncated = bodyTruncated
    }
}

/// A page of the journal.
public struct JournalPage: Sendable, Codable, Equatable {
    public var requests: [JournalEntry]
    /// Entries dropped because the journal was full, since the last clear.
    public var dropped: Int64
    /// Entries matching the filter in the whole journal (not only on this page); left out where a
    /// reader did not ask for the count.
    public var total: Int?
    /// Pass as `before` (newest-first pages) or `after` (oldest-first pages) to get the next page; nil
    /// when this page is the last.
    public var nextCursor: Int64?
    /// Present when the list is filtered by an integration key no application has (``DevicePage/warning``).
    public var warning: String?

    public init(
        requests: [JournalEntry], dropped: Int64, total: Int? = nil, nextCursor: Int64? = nil, warning: String? = nil
    ) {
        self.requests = requests
        self.dropped = dropped
        self.total = total
        self.nextCursor = nextCursor
        self.warning = warning
    }
}

/// What the event stream's `request` event carries: a journal entry without its headers and bodies
/// (`GET /_mock/requests/{id}` has the whole ``JournalEntry``).
public struct RequestSummary: Sendable, Codable, Equatable {
    public var id: Int64
    public var receivedAt: String
    public var method: String
    public var target: String
    public var endpoint: String
    public var status: Int
    public var reason: String?
    public var appKey: String?
    public var durationMs: Double

    public init(
        id: Int64, receivedAt: String, method: String, target: String, endpoint: String, status: Int,
        reason: String? = nil, appKey: String? = nil, durationMs: Double
    ) {
        self.id = id
        self.receivedAt = receivedAt
        self.method = method
        self.target = target
        self.endpoint = endpoint
        self.status = status
        self.reason = reason
        self.appKey = appKey
        self.durationMs = durationMs
    }
}
