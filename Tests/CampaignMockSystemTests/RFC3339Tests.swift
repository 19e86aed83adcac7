import Foundation
import Testing

@testable import CampaignMockSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every stored time reaches the admin API and the event stream through `RFC3339.string`.
@Suite("ISO 8601 times")
struct RFC3339Tests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1_795_424_400_123_456, "2026-11-23T09:00:00.123Z"),
        (951_782_400_999_999, "2000-02-29T00:00:00.999Z"),
        (253_402_300_799_000_000, "9999-12-31T23:59:59.000Z"),
        (1_000, "1970-01-01T00:00:00.001Z"),
    ])
    func writesUTCWithMilliseconds(_ micros: Int64, _ expected: String) {
        #expect(RFC3339.string(microsecondsSince1970: micros) == expected)
    }

    /// The same text Foundation's formatter writes, across many instants.
    @Test func agreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var micros: Int64 = 12_345_678
        for _ in 0..<2000 {
            micros = (micros &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407) & ((1 << 52) - 1)
            let date = Date(timeIntervalSince1970: Double(micros / 1000) / 1000)
            #expect(RFC3339.string(microsecondsSince1970: micros) == formatter.string(from: date))
        }
    }

    /// The date arithmetic agrees with the C library's gmtime_r from year 1 to 9999, leap days included.
    @Test func civilDatesAgreeWithGmtime() {
        for days in stride(from: -719_162, through: 2_932_896, by: 61) {
            var time = time_t(days * 86_400)
            var parts = tm()
            gmtime_r(&time, &parts)
            let expected = (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
            let date = RFC3339.civilDate(daysSince1970: days)
            #expect(date == expected, "day \(days)")
        }
        #expect(RFC3339.string(microsecondsSince1970: -1_000_000) == "1969-12-31T23:59:59.000Z")
        #expect(RFC3339.string(microsecondsSince1970: -62_135_596_800_000_000) == "0001-01-01T00:00:00.000Z")
    }
}
