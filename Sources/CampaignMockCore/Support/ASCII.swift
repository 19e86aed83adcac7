/// Byte-level ASCII helpers for the readers of untrusted input (HTTP, percent-encoding, tracking ids),
/// which work on bytes rather than Characters.
package enum ASCII {
    /// The value of a hex digit (`0-9 a-f A-F`), nil for any other byte.
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Appends the decimal digits of `value` (`String(value)` goes through the generic radix conversion,
    /// several hundred instructions, on every response and every stream event).
    package static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 digits, filled from the end
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                count += 1
                buffer[24 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            for index in (24 - count)..<24 { bytes.append(buffer[index]) }
        }
    }

    package static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        appendDecimal(Int64(value), to: &bytes)
    }

    /// `A-Z` lowered; every other byte as it is.
    package static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
