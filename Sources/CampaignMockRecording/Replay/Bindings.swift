/// What stands for what during a replay: placeholders given with `--secret`, and values learned from
/// answers (a placeholder, or a volatile token such as a SOAP session token, recorded in one answer and
/// sent again in later requests).
package struct Bindings: Sendable {
    /// Recorded text → the value to use now.
    package private(set) var values: [String: String] = [:]

    package init() {}

    /// `redacted-<kind>-<n>`.
    static var placeholder: Regex<Substring> { #/redacted-[A-Za-z]+-[0-9]+/# }

    /// Sets a placeholder's value; `name` may leave out `redacted-`.
    package mutating func setSecret(_ name: String, _ value: String) {
        values[name.hasPrefix("redacted-") ? name : "redacted-" + name] = value
    }

    mutating func learn(_ recorded: String, _ actual: String) {
        if recorded != actual && values[recorded] == nil { values[recorded] = actual }
    }

    /// Placeholders in `text` nobody gave a value for.
    func unfilled(in text: String) -> [String] {
        text.matches(of: Self.placeholder).map { String($0.output) }.filter { values[$0] == nil }
    }

    /// `text` with every bound value put in where the recorded one stands whole, written with `spell`
    /// (percent-encoding for a form, escaping for XML).
    func substitute(_ text: String, spell: (String) -> String = { $0 }) -> String {
        values.keys.sorted { $0.count > $1.count }.reduce(text) { text, key in
            WholeValue.replace(key, with: spell(values[key]!), in: text)
        }
    }
}

/// Values that differ from run to run, compared by their shape (docs/recording.md, "Replay").
enum VolatileValue: CaseIterable {
    case timestamp, httpDate, uuid, sessionToken, securityToken

    /// What the value looks like, as a regular expression.
    var pattern: String {
        switch self {
        case .timestamp: return #"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?"#
        case .httpDate: return #"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT"#
        case .uuid: return #"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"#
        case .sessionToken: return #"___[0-9A-Za-z-]+"#
        case .securityToken: return #"@[A-Za-z0-9+/=_-]{16,}"#
        }
    }

    /// Whether later requests may carry the value again, so the replay must send the new one.
    var isSentBack: Bool { self == .sessionToken || self == .securityToken }

    /// Every volatile value in `text`, longest kinds first where they overlap.
    static func find(in text: String) -> [(range: Range<String.Index>, kind: VolatileValue)] {
        var found: [(Range<String.Index>, VolatileValue)] = []
        for kind in [VolatileValue.sessionToken, .securityToken, .timestamp, .httpDate, .uuid] {
            guard let regex = try? Regex(kind.pattern) else { continue }
            for match in text.matches(of: regex)
            where !found.contains(where: { $0.0.overlaps(match.range) }) {
                found.append((match.range, kind))
            }
        }
        return found.sorted { $0.0.lowerBound < $1.0.lowerBound }
    }
}
