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
        return String(decoding: (try? encoder.encode(value)) ?? Data("null".utf8), as: UTF8.self)
    }
}
