/// One `additionalParams` entry: the name, the text as sent, and the type that text reads as.
public struct AdditionalParam: Sendable, Equatable, Codable {
    /// How the value was written: the SDKs turn every type into text (docs/protocol.md §3.4).
    public enum Kind: String, Sendable, Codable {
        case string, integer, decimal, boolean
    }

    public let name: String
    public let value: String
    public let kind: Kind

    private enum CodingKeys: String, CodingKey {
        case name, value
        case kind = "type"
    }

    public init(name: String, value: String) {
        self.name = name
        self.value = value
        self.kind = Self.kind(of: value)
    }

    public init(name: String, value: String, kind: Kind) {
        self.name = name
        self.value = value
        self.kind = kind
    }

    /// `true`/`false` are booleans, `-12` an integer (within 64 bits), `3.14` or `1e5` a decimal.
    static func kind(of text: String) -> Kind {
        if text == "true" || text == "false" { return .boolean }
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard let first = digits.first, first.isASCII, first.isNumber else { return .string }
        if digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return Int64(text) != nil ? .integer : .string
        }
        let decimal = digits.allSatisfy { $0.isASCII && ($0.isNumber || "eE.+-".contains($0)) }
        return decimal && Double(text)?.isFinite == true ? .decimal : .string
    }

}
