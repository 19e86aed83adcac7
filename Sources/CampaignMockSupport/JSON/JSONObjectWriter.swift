import CampaignMockSystem

/// Writes one JSON object straight into bytes, for items sent on every change (the event stream's
/// tracking events and journal entries), where Foundation's encoder cost more than reading the row.
///
/// Callers write the members in sorted key order and skip nil ones, which is what `JSONEncoder` with
/// `.sortedKeys` writes for a synthesized `Codable` type; the types that use it have a test comparing
/// both texts, so the stream and the admin API show the same item.
package struct JSONObjectWriter {
    private(set) var bytes: [UInt8]
    private var empty = true

    package init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// The object, closed.
    package consuming func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private mutating func key(_ name: StaticString) {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        bytes.append(UInt8(ascii: "\""))
        // Byte by byte: for a few bytes, cheaper than the generic append.
        name.withUTF8Buffer { for byte in $0 { bytes.append(byte) } }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    package mutating func string(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        JSONStringWriter.append(value, to: &bytes)
    }

    /// A string given as valid UTF-8 bytes.
    mutating func string(_ name: StaticString, utf8 value: ArraySlice<UInt8>) {
        key(name)
        value.withUnsafeBufferPointer { JSONStringWriter.append(utf8: $0, to: &bytes) }
    }

    package mutating func integer(_ name: StaticString, _ value: Int64?) {
        guard let value else { return }
        key(name)
        ASCII.appendDecimal(value, to: &bytes)
    }

    package mutating func integer(_ name: StaticString, _ value: Int) {
        integer(name, Int64(value))
    }

    /// Milliseconds given in microseconds, as `JSONEncoder` writes `Double(micros) / 1000`: the decimal,
    /// without trailing zeros (exact while the value has fewer digits than a Double keeps).
    package mutating func milliseconds(_ name: StaticString, micros: Int64) {
        guard micros.magnitude < 1_000_000_000_000_000 else { return number(name, Double(micros) / 1000) }
        key(name)
        if micros < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = Int64(micros.magnitude)
        ASCII.appendDecimal(magnitude / 1000, to: &bytes)
        var fraction = magnitude % 1000
        guard fraction != 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var width = 3
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        var divisor: Int64 = width == 3 ? 100 : width == 2 ? 10 : 1
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / divisor % 10))
            divisor /= 10
        }
    }

    mutating func bool(_ name: StaticString, _ value: Bool) {
        key(name)
        bytes += (value ? "true" : "false").utf8
    }

    /// A finite number as `JSONEncoder` writes it: the shortest text that reads back the same, without
    /// a trailing `.0`.
    mutating func number(_ name: StaticString, _ value: Double) {
        key(name)
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes += text.utf8
    }

    /// A member whose value is already JSON (a nested object or array).
    package mutating func json(_ name: StaticString, _ value: [UInt8]?) {
        guard let value else { return }
        key(name)
        bytes += value
    }

    /// A member whose value is JSON text already.
    mutating func json(_ name: StaticString, text value: String) {
        key(name)
        bytes += value.utf8
    }
}
