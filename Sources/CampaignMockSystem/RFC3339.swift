#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// RFC 3339 `date-time`, the format of every time the server writes and the admin API reads: written in UTC
/// with milliseconds, read in any of its forms (`2026-11-22T17:21:28Z`, `2026-11-22t17:21:28.5+01:00`).
package enum RFC3339 {
    /// RFC 3339 (ISO 8601) in UTC with milliseconds, e.g. `2026-11-22T17:10:00.123Z`: every time the
    /// server writes, in JSON, logs and files.
    package static func string(microsecondsSince1970 micros: Int64) -> String {
        let seconds = Int(micros / 1_000_000)
        let millis = Int((micros % 1_000_000) / 1000)
        let (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let (day, secondsLeft) = secondOfDay < 0 ? (days - 1, secondOfDay + 86_400) : (days, secondOfDay)
        let (year, month, dayOfMonth) = civilDate(daysSince1970: day)
        guard (1...9999).contains(year), millis >= 0 else {
            func pad(_ value: Int, _ width: Int = 2) -> String {
                String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
            }
            return "\(year)-\(pad(month))-\(pad(dayOfMonth))T\(pad(secondsLeft / 3600)):\(pad(secondsLeft / 60 % 60)):"
                + "\(pad(secondsLeft % 60)).\(pad(millis, 3))Z"
        }
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

    /// Microseconds since 1970; nil when `text` is not an RFC 3339 date-time (RFC 3339 §5.6).
    package static func microseconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + digits)] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += digits
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("Tt "), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2),
            (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var micros = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                if digits < 6 { micros = micros * 10 + Int(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if digits < 6 {
                for _ in digits..<6 { micros *= 10 }
            }
        }
        var offsetMinutes = 0
        if expect("Zz") {
            offsetMinutes = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2), expect(":"), let minutes = number(2), hours <= 23, minutes <= 59 else {
                return nil
            }
            offsetMinutes = sign * (hours * 60 + minutes)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = Int64(timegm(&parts)) - Int64(offsetMinutes * 60)
        return seconds * 1_000_000 + Int64(micros)
    }
}
