package import CampaignMockModel
import CampaignMockSupport
import CampaignMockSystem

/// What the journal stores for one request (the id and time are assigned on insert).
package struct JournalRecord: Sendable {
    package var receivedAtMicros: Int64
    package var method: String
    package var target: String
    package var endpoint: String
    package var headersJSON: String
    package var body: [UInt8]
    package var status: Int
    package var reason: String?
    package var appKey: String?
    package var durationMicros: Int64
    package var remoteAddress: String?
    /// The answer's headers (those the endpoint set, as `JSONArrays` writes them) and body, up to
    /// ``JournalEntry/bodyLimit`` bytes and one more; nil for entries written before the journal kept them.
    package var responseHeadersJSON: String? = nil
    package var responseBody: [UInt8] = []
    /// Monotonic time the request arrived; ``finished()`` turns it into the duration.
    package var monotonicStart: UInt64 = 0
    /// What became of the request, in types, for the sink's subscribers (the integration checks); in memory
    /// only, not in the journal's file: nil in a record read back from it.
    package var fact: RequestFact? = nil

    /// The record with its duration measured up to now (the write runs just before the commit).
    package func finished() -> JournalRecord {
        var record = self
        if monotonicStart != 0 {
            record.durationMicros = Int64((Clock.monotonicNanoseconds() &- monotonicStart) / 1000)
        }
        return record
    }

    package init(
        receivedAtMicros: Int64, method: String, target: String, endpoint: String, headersJSON: String, body: [UInt8],
        status: Int, reason: String? = nil, appKey: String? = nil, durationMicros: Int64, remoteAddress: String? = nil,
        responseHeadersJSON: String? = nil, responseBody: [UInt8] = [], monotonicStart: UInt64 = 0
    ) {
        self.receivedAtMicros = receivedAtMicros
        self.method = method
        self.target = target
        self.endpoint = endpoint
        self.headersJSON = headersJSON
        self.body = body
        self.status = status
        self.reason = reason
        self.appKey = appKey
        self.durationMicros = durationMicros
        self.remoteAddress = remoteAddress
        self.responseHeadersJSON = responseHeadersJSON
        self.responseBody = responseBody
        self.monotonicStart = monotonicStart
    }
}

extension JournalEntry {
    /// The entry the admin API shows for the stored `record`.
    init(id: Int64, record: JournalRecord) {
        let (body, encoding, truncated) = Self.kept(record.body)
        self.init(
            id: id,
            receivedAt: RFC3339.string(microsecondsSince1970: record.receivedAtMicros),
            method: record.method,
            target: record.target,
            endpoint: record.endpoint,
            headers: JSONArrays.decodePairs(record.headersJSON),
            body: body,
            bodyEncoding: encoding,
            bodyTruncated: truncated,
            status: record.status,
            reason: record.reason,
            appKey: record.appKey,
            durationMs: Double(record.durationMicros) / 1000,
            remoteAddress: record.remoteAddress,
            response: record.responseHeadersJSON.map { headers in
                let (body, encoding, truncated) = Self.kept(record.responseBody)
                return JournalResponse(
                    headers: JSONArrays.decodePairs(headers), body: body, bodyEncoding: encoding,
                    bodyTruncated: truncated)
            })
    }

    /// A body as the journal shows it: the text (base64 when it is not UTF-8), its encoding, and whether
    /// it was longer than the journal keeps.
    private static func kept(_ body: [UInt8]) -> (String, String, Bool) {
        let kept = Array(body.prefix(JournalEntry.bodyLimit))
        let text = String(validating: kept, as: UTF8.self)
        return (text ?? Base64.encode(kept), text == nil ? "base64" : "utf-8", body.count > JournalEntry.bodyLimit)
    }
}
