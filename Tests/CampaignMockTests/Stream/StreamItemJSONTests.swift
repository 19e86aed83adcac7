import Foundation
import Testing

@testable import CampaignMock

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

    @Test(arguments: zip(texts, [0, 0.001, 0.25, 1, 12.5, 1234.567, 0.000_01, 86_400_000.5]))
    func journalEntriesMatchJSONEncoder(_ text: String, _ duration: Double) throws {
        let entry = JournalEntry(
            id: 7, receivedAt: "2026-11-23T09:00:00.000001Z", method: "POST", target: "/r/?id=\(text)",
            endpoint: "tracking", headers: [["Host", text], ["X", ""]], body: text, bodyEncoding: "utf8",
            bodyTruncated: !text.isEmpty, status: 200, reason: text.isEmpty ? nil : text, appKey: text,
            durationMs: duration, remoteAddress: nil)
        #expect(String(decoding: entry.json, as: UTF8.self) == (try encoderText(entry)))
        var bare = entry
        bare.headers = []
        bare.appKey = nil
        #expect(String(decoding: bare.json, as: UTF8.self) == (try encoderText(bare)))
    }
}
