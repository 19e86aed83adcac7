/// Which registered devices the mock may send real pushes to: patterns on a device's userKey, token or
/// application (`userKey:*@example.com`, `token:80f1*`, `app:my-ios-key`, or `*` for every device).
/// `*` matches any run of characters, and matching is case-sensitive. An empty list lets nothing
/// through: sending to a real phone is something to switch on per device or team, not by accident.
///
/// A device registers itself, and anyone who reaches the mock can register any token under any userKey
/// and application (docs/security.md). So only a `token:` pattern, which the developer wrote on this
/// machine, lets a device through on its own; `userKey:`, `app:` and `*` let through only the devices
/// among those it matches whose token was confirmed on this machine (trusted: ``verdict(_:trusted:)``).
package struct SendAllowList: Sendable, Equatable {
    /// One pattern: the field it tests and the glob.
    package struct Pattern: Sendable, Equatable, CustomStringConvertible {
        package enum Field: String, Sendable, CaseIterable {
            case userKey, token, app
        }

        /// Nil for the bare `*`.
        package let field: Field?
        package let glob: String

        /// - Throws: ``SendAllowListError`` for an unknown field or an empty glob.
        package init(parsing text: String) throws(SendAllowListError) {
            if text == "*" {
                field = nil
                glob = "*"
                return
            }
            guard let colon = text.firstIndex(of: ":"),
                let field = Field(rawValue: String(text[..<colon]))
            else {
                throw SendAllowListError(
                    "'\(text)': a pattern is userKey:GLOB, token:GLOB, app:GLOB or * (every device)")
            }
            let glob = String(text[text.index(after: colon)...])
            guard !glob.isEmpty else { throw SendAllowListError("'\(text)': the pattern after ':' is empty") }
            self.field = field
            self.glob = glob
        }

        package var description: String { field.map { "\($0.rawValue):\(glob)" } ?? glob }

        func matches(_ device: Device) -> Bool {
            switch field {
            case nil: true
            case .userKey: device.userKey.map { Self.glob(glob, matches: $0) } ?? false
            case .token: Self.glob(glob, matches: device.token)
            case .app: Self.glob(glob, matches: device.app)
            }
        }

        /// Whether `text` matches `glob`, where `*` stands for any run of characters.
        static func glob(_ glob: String, matches text: String) -> Bool {
            let parts = glob.split(separator: "*", omittingEmptySubsequences: false).map(Array.init)
            let text = Array(text)
            guard parts.count > 1 else { return text == parts[0] }
            guard text.starts(with: parts[0]), text.count >= parts[0].count + parts[parts.count - 1].count,
                text.reversed().starts(with: parts[parts.count - 1].reversed())
            else { return false }
            // The middle parts, each at its first place after the previous one.
            var position = parts[0].count
            let end = text.count - parts[parts.count - 1].count
            for part in parts[1..<(parts.count - 1)] where !part.isEmpty {
                guard let found = firstIndex(of: part, in: text, from: position, before: end) else { return false }
                position = found + part.count
            }
            return true
        }

        private static func firstIndex(of part: [Character], in text: [Character], from start: Int, before end: Int)
            -> Int?
        {
            guard end - start >= part.count else { return nil }
            return (start...(end - part.count)).first { text[$0..<($0 + part.count)].elementsEqual(part) }
        }
    }

    /// What the list tests of a device.
    package struct Device: Sendable {
        package var userKey: String?
        package var token: String
        package var app: String

        package init(userKey: String?, token: String, app: String) {
            self.userKey = userKey
            self.token = token
            self.app = app
        }
    }

    package var patterns: [Pattern]

    package init(_ patterns: [Pattern] = []) {
        self.patterns = patterns
    }

    /// What the list says of a device.
    package enum Verdict: Sendable, Equatable {
        /// A `token:` pattern matches, or the device is trusted and some pattern matches.
        case allowed
        /// This pattern (`userKey:`, `app:` or `*`) matches, but the device's token is not trusted.
        case needsTrust(Pattern)
        /// No pattern matches.
        case notListed
    }

    /// The pattern that matches `device`: the first `token:` one, else the first of any field; nil when none.
    package func match(_ device: Device) -> Pattern? {
        let matching = patterns.filter { $0.matches(device) }
        return matching.first { $0.field == .token } ?? matching.first
    }

    /// Whether the list lets `device` through, when its token is `trusted` on this machine or not.
    package func verdict(_ device: Device, trusted: Bool) -> Verdict {
        var untrusted: Pattern?
        for pattern in patterns where pattern.matches(device) {
            if trusted || pattern.field == .token { return .allowed }
            untrusted = untrusted ?? pattern
        }
        return untrusted.map { .needsTrust($0) } ?? .notListed
    }
}

/// A pattern of the send allow-list that cannot be read.
package struct SendAllowListError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
