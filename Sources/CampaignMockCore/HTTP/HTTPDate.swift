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
        let parts = utc(seconds)
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year), millis >= 0 else {
            return "\(year)-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T"
                + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)).\(pad(Int32(millis), width: 3))Z"
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
            digits(Int(parts.tm_mon) + 1, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            digits(Int(parts.tm_mday), 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            digits(Int(parts.tm_hour), 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            digits(Int(parts.tm_min), 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            digits(Int(parts.tm_sec), 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            digits(millis, 3, at: 20)
            buffer[23] = UInt8(ascii: "Z")
            return 24
        }
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
