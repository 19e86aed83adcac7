/// A string-valued enumeration read from JSON whose error names every accepted value, so a typo such as
/// `"endpoint": "tracker"` is answered with the list instead of a bare "invalid value".
public protocol ClosedSet: RawRepresentable, CaseIterable, Codable where RawValue == String {}

extension ClosedSet {
    /// `registration-ios, registration-android, tracking, …`
    public static var acceptedValues: String { allCases.map(\.rawValue).joined(separator: ", ") }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not one of \(Self.acceptedValues)")
        }
        self = value
    }
}
