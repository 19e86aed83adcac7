#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Wall-clock formatting for HTTP and logs, without Foundation.
package enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate (RFC 9110 §5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    package static func imfFixdate(secondsSince1970 seconds: Int) -> String {
        let parts = utc(seconds)
        return "\(days[Int(parts.tm_wday)]), \(pad(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)) GMT"
    }

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-11-22T17:10:00.123Z`.
    package static func iso8601(microsecondsSince1970 micros: Int64) -> String {
        let seconds = Int(micros / 1_000_000)
        let millis = Int((micros % 1_000_000) / 1000)
        // From 0001-01-01 to 9999-12-31, the date is worked out here; gmtime_r cost more than the rest.
        guard (-62_135_596_800..<253_402_300_800).contains(seconds), millis >= 0 else {
            let parts = utc(seconds)
            return "\(Int(parts.tm_year) + 1900)-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T"
                + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)).\(pad(Int32(millis), width: 3))Z"
        }
        let (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let (day, secondsLeft) = secondOfDay < 0 ? (days - 1, secondOfDay + 86_400) : (days, secondOfDay)
        let (year, month, dayOfMonth) = civilDate(daysSince1970: day)
        // Written digit by digit: every stored row read for the admin API or the event stream has one.
        return String(unsafeUninitializedCapacity: 24) { buffer in
            func digits(_ value: Int, _ width: Int, at offset: Int) {
                var value = value
                for position in stride(from: offset + width - 1, through: offset, by: -1) {
                    buffer[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            digits(year, 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            digits(month, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            digits(dayOfMonth, 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            digits(secondsLeft / 3600, 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            digits(secondsLeft / 60 % 60, 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            digits(secondsLeft % 60, 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            digits(millis, 3, at: 20)
            buffer[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (the civil-from-days algorithm: eras of
    /// 400 years, years starting on 1 March so the leap day comes last).
    static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func utc(_ seconds: Int) -> tm {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return parts
    }

    private static func pad(_ value: Int32, width: Int = 2) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
