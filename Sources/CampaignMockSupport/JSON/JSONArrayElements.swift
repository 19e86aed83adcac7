package import CampaignMockHTTP

/// The elements of a JSON array, one at a time, read a piece at a time: an array of gigabytes costs its
/// largest element, and no element may be larger than `maximumElementBytes` (its decoding copies it a few
/// times). The text must have passed ``JSONCheck`` (only strings and nesting are followed here).
package struct JSONArrayElements {
    let source: any ByteSource
    /// Where the array is, from its `[` to its `]`.
    let range: Range<Int>
    let maximumElementBytes: Int

    package init(source: any ByteSource, range: Range<Int>, maximumElementBytes: Int = defaultMaximumElementBytes) {
        self.source = source
        self.range = range
        self.maximumElementBytes = maximumElementBytes
    }

    /// 8 MiB: a row of the mock's state is a few kilobytes.
    package static let defaultMaximumElementBytes = 8 << 20

    /// An element over `maximumElementBytes`; none is read after it.
    package struct ElementTooLarge: Error, Equatable {
        package let index: Int
        package let limit: Int
    }

    static let pieceSize = 256 << 10

    /// Calls `body` with each element's index and bytes, in order; stops at the first error it throws.
    package func readEach(_ body: (Int, [UInt8]) throws -> Void) throws {
        var offset = range.lowerBound
        var depth = 0
        var inString = false
        var escaped = false
        var element: [UInt8] = []
        var index = 0
        func finish() throws {
            guard !element.isEmpty else { return }
            try body(index, element)
            index += 1
            element.removeAll(keepingCapacity: true)
        }
        while offset < range.upperBound {
            if element.count > maximumElementBytes {
                throw ElementTooLarge(index: index, limit: maximumElementBytes)
            }
            let piece = try source.read(at: offset, length: min(Self.pieceSize, range.upperBound - offset))
            guard !piece.isEmpty else { break }
            offset += piece.count
            for byte in piece {
                if inString {
                    element.append(byte)
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""):
                    inString = true
                    element.append(byte)
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if depth > 1 { element.append(byte) }
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                    if depth > 0 { element.append(byte) } else { try finish() }
                case UInt8(ascii: ",") where depth == 1:
                    try finish()
                case 0x20, 0x09, 0x0A, 0x0D:
                    continue  // outside strings, white space means nothing
                default:
                    if depth > 0 { element.append(byte) }
                }
            }
        }
    }
}
