extension Application {
    /// Parses `PLATFORM:KEY[:NAME[:ID]]` (the `--app` flag and `CAMPAIGN_MOCK_APPS`): PLATFORM `ios` or
    /// `android`; ID the iOS bundle id or the Android package name, which pushes to a simulator or an
    /// emulator need. A NAME may hold colons: what follows its last colon is the ID only when it has no
    /// spaces (`ios:KEY:Shop: the app` is named `Shop: the app`); an empty NAME takes the default.
    public init(specification: String) throws(ApplicationError) {
        let parts = specification.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, let platform = Platform(rawValue: parts[0].lowercased()) else {
            throw ApplicationError(
                "'\(specification)' is not PLATFORM:KEY[:NAME[:ID]] with PLATFORM ios or android (ID: the bundle id "
                    + "or package name)")
        }
        var name = parts.count == 3 ? parts[2] : ""
        var identifier: String?
        if let colon = name.lastIndex(of: ":") {
            let tail = String(name[name.index(after: colon)...])
            if !tail.isEmpty && !tail.contains(where: \.isWhitespace) {
                identifier = tail
                name = String(name[..<colon])
            }
        }
        self.init(
            name: name.isEmpty ? Self.defaultName(platform, parts[1]) : name, platform: platform,
            integrationKey: parts[1])
        switch platform {
        case .ios: bundleId = identifier
        case .android: packageName = identifier
        }
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
        if let bundleId {
            guard platform == .ios else {
                throw ApplicationError("bundleId is for iOS applications; Android ones take packageName")
            }
            try AppIdentifier.bundleID.check(bundleId, field: "bundleId")
        }
        if let packageName {
            guard platform == .android else {
                throw ApplicationError("packageName is for Android applications; iOS ones take bundleId")
            }
            try AppIdentifier.packageName.check(packageName, field: "packageName")
        }
    }
}

/// The two reverse-DNS names an app is known by to the systems that deliver its pushes.
public enum AppIdentifier: Sendable {
    /// An iOS bundle id (`com.example.app`): dot-separated parts of letters, digits and `-`, at least two.
    case bundleID
    /// An Android package name (`com.example.app`): dot-separated parts that start with a letter, then
    /// letters, digits and `_`, at least two.
    case packageName

    /// Whether `text` has this form.
    public func accepts(_ text: String) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard text.utf8.count <= 255, parts.count >= 2 else { return false }
        return parts.allSatisfy { part in
            guard let first = part.first else { return false }
            switch self {
            case .bundleID:
                return part.allSatisfy { Self.isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }
            case .packageName:
                return Self.isLetter(first) && part.allSatisfy { Self.isLetterOrDigit($0) || $0 == UInt8(ascii: "_") }
            }
        }
    }

    /// Throws a message naming `field` unless `text` has this form.
    public func check(_ text: String, field: String) throws(ApplicationError) {
        guard !accepts(text) else { return }
        let form =
            self == .bundleID
            ? "dot-separated letters, digits and '-'"
            : "dot-separated parts that start with a letter, then letters, digits and '_'"
        throw ApplicationError("\(field) '\(text.prefix(64))' is not a reverse-DNS name like com.example.app (\(form))")
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}

/// Why an application definition was refused.
public struct ApplicationError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
