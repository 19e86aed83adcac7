package import CampaignMockSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension JSONText {
    /// `value` as compact JSON with sorted keys (what a payload's size is measured on).
    package static func compact(_ value: some Encodable) -> String {
        encode(value, [.sortedKeys, .withoutEscapingSlashes])
    }

    /// `value` as indented JSON with sorted keys (for files people read).
    package static func pretty(_ value: some Encodable) -> String {
        encode(value, [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]) + "\n"
    }

    private static func encode(_ value: some Encodable, _ formatting: JSONEncoder.OutputFormatting) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        let json = (try? encoder.encode(value)).map { Array($0) } ?? Array("null".utf8)
        return String(decoding: escapingControls(json), as: UTF8.self)
    }

    /// Encoder-made JSON with DEL and the C1 controls (U+0080 to U+009F) written as `\u007f`…`\u009f`, as
    /// ``quoted(_:)`` writes them: the same JSON, and text a terminal or a CI log shows instead of acting on
    /// (JSONEncoder escapes C0 only). In such JSON these bytes are only ever inside strings. The bytes
    /// themselves when there are none (one pass).
    package static func escapingControls(_ json: [UInt8]) -> [UInt8] {
        guard json.contains(where: { $0 == 0x7F || $0 == 0xC2 }) else { return json }
        var result: [UInt8] = []
        result.reserveCapacity(json.count + 16)
        var index = 0
        while index < json.count {
            let byte = json[index]
            if byte == 0x7F {
                result += Array("\\u007f".utf8)
            } else if byte == 0xC2, index + 1 < json.count, (0x80...0x9F).contains(json[index + 1]) {
                result += Array("\\u00".utf8) + Array(String(json[index + 1], radix: 16).utf8)
                index += 1
            } else {
                result.append(byte)
            }
            index += 1
        }
        return result
    }
}
