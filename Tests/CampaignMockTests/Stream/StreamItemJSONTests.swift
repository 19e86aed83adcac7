import Foundation
import Testing

@testable import CampaignMockJournal
@testable import CampaignMockModel
@testable import CampaignMockRuntime
@testable import CampaignMockSupport

/// The event stream writes tracking events and journal entries by hand; each must be exactly the text
/// JSONEncoder writes for the admin API, or the console would see two shapes of the same item.
@Suite("stream item JSON")
struct StreamItemJSONTests {
    private static let texts = [
        "", "h3039", "Jürgen's \"phone\"", "back\\slash", "a/b", "line\nbreak\r\ttab", "\u{08}\u{0C}\u{01}\u{1F}\u{7F}",
        "日本語 😀 é",
    ]

    @Test(arguments: texts)
    func trackingEventsMatchJSONEncoder(_ text: String) throws {
        let full = TrackingEvent(
            id: 42, receivedAt: "2026-11-23T09:00:00.123456Z", tag: 2, type: "open", rawId: text, messageHex: text,
            messageValue: "18446744073709551615", messageUuid: text, deliveryId: text, userAgent: text,
            remoteAddress: "::1",
            linked: .init(messageId: text, deliveryId: "d1", registrationToken: text, integrationKey: nil))
        #expect(String(decoding: full.json, as: UTF8.self) == (try encoderText(full)))
        let sparse = TrackingEvent(
            id: -1, receivedAt: text, tag: 0, type: text, rawId: text, messageHex: nil, messageValue: nil,
            messageUuid: nil, deliveryId: "", userAgent: nil, remoteAddress: nil, linked: nil)
        #expect(String(decoding: sparse.json, as: UTF8.self) == (try encoderText(sparse)))
    }

    /// A `request` stream event is the entry's summary: the entry's keys but headers, bodies, client and answer.
    @Test(arguments: zip(texts, [0, 1, 250, 1000, 12_500, 1_234_567, 10, 86_400_000_500]))
    func requestSummariesAreTheEntryWithoutItsExchange(_ text: String, _ durationMicros: Int64) throws {
        var record = JournalRecord(
            receivedAtMicros: 1_795_424_400_000_001, method: "POST", target: "/r/?id=\(text)", endpoint: "tracking",
            headersJSON: JSONArrays.encodePairs([("Host", text)]), body: Array(text.utf8), status: 200,
            reason: text.isEmpty ? nil : text, appKey: text, durationMicros: durationMicros, remoteAddress: "::1",
            responseHeadersJSON: "[]", responseBody: Array("OK".utf8))
        try expectSummary(record, id: 7)
        record.appKey = nil
        record.reason = nil
        try expectSummary(record, id: 8)
    }

    private func expectSummary(_ record: JournalRecord, id: Int64) throws {
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(record.summaryJSON(id: id))) as? NSDictionary)
        let entry = try #require(
            try JSONSerialization.jsonObject(with: Data(encoderText(JournalEntry(id: id, record: record)).utf8))
                as? [String: Any])
        let left = ["headers", "body", "bodyEncoding", "bodyTruncated", "remoteAddress", "response"]
        #expect(summary == NSDictionary(dictionary: entry.filter { !left.contains($0.key) }))
        // The type the clients decode it as, written back, is the same text.
        let decoded = try JSONDecoder().decode(RequestSummary.self, from: Data(record.summaryJSON(id: id)))
        #expect(try encoderText(decoded) == String(decoding: record.summaryJSON(id: id), as: UTF8.self))
    }

    /// Durations are written from their microseconds; the text is JSONEncoder's for the Double.
    @Test func durationsMatchJSONEncoder() throws {
        var micros: Int64 = 7
        var values: [Int64] = Array(0...2100) + [-1, -999, -1000, -1001, 999_999_999_999_999, -999_999_999_999_999]
        for _ in 0..<3000 {
            micros = (micros &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407) & ((1 << 47) - 1)
            values.append(micros >> Int64(micros % 40))
        }
        for value in values {
            var object = JSONObjectWriter()
            object.milliseconds("d", micros: value)
            let expected = try encoderText(["d": Double(value) / 1000])
            #expect(String(decoding: object.finish(), as: UTF8.self) == expected, "\(value) µs")
        }
    }
}
