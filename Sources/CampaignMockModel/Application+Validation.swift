extension Application {
    /// Parses `ios:KEY[:NAME]` or `android:KEY[:NAME]` (the `--app` flag and `CAMPAIGN_MOCK_APPS`).
    public init(specification: String) throws(ApplicationError) {
        let parts = specification.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, let platform = Platform(rawValue: parts[0].lowercased()) else {
            throw ApplicationError("'\(specification)' is not PLATFORM:KEY[:NAME] with PLATFORM ios or android")
        }
        let name = parts.count == 3 && !parts[2].isEmpty ? parts[2] : Self.defaultName(platform, parts[1])
        self.init(name: name, platform: platform, integrationKey: parts[1])
        try validate()
    }

    /// The name given to an application configured without one.
    public static func defaultName(_ platform: Platform, _ key: String) -> String {
        "\(platform == .ios ? "iOS" : "Android") app \(key)"
    }

    /// Checks the key and name a user gave.
    public func validate() throws(ApplicationError) {
        guard !integrationKey.isEmpty else { throw ApplicationError("the integration key must not be empty") }
        guard integrationKey.utf8.count <= 255, integrationKey.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            throw ApplicationError(
                "integration key '\(integrationKey.prefix(64))' must be 1 to 255 visible ASCII characters")
        }
        guard !name.isEmpty, name.count <= 255 else {
            throw ApplicationError("the application name must be 1 to 255 characters")
        }
    }
}

/// Why an application definition was refused.
public struct ApplicationError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
