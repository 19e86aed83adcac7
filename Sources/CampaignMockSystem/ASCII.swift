/// Byte-level ASCII helpers for the readers of untrusted input (HTTP, percent-encoding, tracking ids),
/// which work on bytes rather than Characters.
@usableFromInline package enum ASCII {
    /// The value of a hex digit (`0-9 a-f A-F`), nil for any other byte.
    @inlinable package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Appends the decimal digits of `value` (`String(value)` goes through the generic radix conversion,
    /// several hundred instructions, on every response and every stream event).
    @inlinable package static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        withDecimal(value) { digits in
            for digit in digits { bytes.append(digit) }
        }
    }

    /// Calls `body` with the decimal text of `value` (a sign and up to 19 digits), written on the stack.
    @inlinable package static func withDecimal(_ value: Int64, _ body: (UnsafeRawBufferPointer) -> Void) {
        var magnitude = value.magnitude
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 bytes, filled from the end
        withUnsafeMutableBytes(of: &text) { buffer in
            var start = 24
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            body(UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    @inlinable package static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        appendDecimal(Int64(value), to: &bytes)
    }

    /// `A-Z` lowered; every other byte as it is.
    @inlinable package static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
