package import CampaignMockCore

/// The elements of a JSON array, one at a time, read a piece at a time: an array of gigabytes costs its
/// largest element. The text must have passed ``JSONCheck`` (only strings and nesting are followed here).
package struct JSONArrayElements {
    let source: any ByteSource
    /// Where the array is, from its `[` to its `]`.
    let range: Range<Int>

    package init(source: any ByteSource, range: Range<Int>) {
        self.source = source
        self.range = range
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
