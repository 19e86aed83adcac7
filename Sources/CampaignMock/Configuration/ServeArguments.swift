package import CampaignMockSystem

/// The `serve` command line, read against the setting table, the one place a flag is named:
/// `--journal-limit 500` or `--journal-limit=500`, switches without a value (`--in-memory`), flags that
/// may be given more than once (`--app A --app B`), and `--config FILE`.
///
/// swift-argument-parser read these before, from one property per setting. It reflected over all of
/// them several times while parsing: with its other work on every command line, three quarters of the
/// instructions a start executed.
package struct ServeArguments: Equatable, Sendable {
    /// Setting key → value, as ``Configuration/resolve(flags:environment:configFile:)`` takes them;
    /// the values of a repeated flag one per line.
    package private(set) var flags: [String: String] = [:]
    /// `--config FILE`.
    package private(set) var configFile: String?

    /// The flag of the config file, which is not a setting: it says where the settings are.
    static let configFlag = "--config"

    /// - Throws: ``ConfigurationError`` naming the argument: an unknown flag, a missing value, a value
    ///   given to a switch, or an argument that is not a flag.
    package init(parsing arguments: [String]) throws(ConfigurationError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw ConfigurationError(
                    "unexpected argument '\(argument)': settings are flags (--port 9000), see 'serve --help'")
            }
            let name: String
            var value: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            } else {
                name = argument
            }
            if name == Self.configFlag {
                configFile = try Self.value(of: name, given: value, from: &remaining)
                continue
            }
            guard let setting = Setting.flagged(name[...]) else {
                let guess = Self.closestFlag(to: name).map { " (did you mean \($0)?)" } ?? ""
                throw ConfigurationError("unknown option '\(name)'\(guess), see 'serve --help'")
            }
            switch setting.form {
            case .switch:
                guard value == nil else { throw ConfigurationError("\(name) takes no value") }
                flags[setting.key] = "true"
            case .value:
                flags[setting.key] = try Self.value(of: name, given: value, from: &remaining)
            case .repeated:
                let next = try Self.value(of: name, given: value, from: &remaining)
                flags[setting.key] = flags[setting.key].map { $0 + "\n" + next } ?? next
            }
        }
    }

    /// The flag a mistyped `name` most likely meant: within two edits, or the only flag it begins.
    static func closestFlag(to name: String) -> String? {
        let flags = Setting.all.map(\.flag) + [configFlag]
        let prefixed = flags.filter { $0.hasPrefix(name) }
        if prefixed.count == 1 { return prefixed[0] }
        let scored = flags.map { ($0, editDistance(Array(name.utf8), Array($0.utf8))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
        return best.0
    }

    /// Levenshtein distance: insertions, deletions and substitutions.
    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The arguments after `serve` when a command line runs serve and names nothing but settings:
    /// `serve` or a flag first (serve is the default command), and every flag a setting or `--config`.
    /// Nil for another command, and for a flag of the command-line parser's own, such as `--help`.
    package static func serveOnly(_ arguments: [String]) -> [String]? {
        var rest = arguments[...]
        if rest.first == "serve" {
            rest.removeFirst()
        } else if let first = rest.first, !first.hasPrefix("--") {
            return nil
        }
        for argument in rest where argument.hasPrefix("-") {
            let name = argument.split(separator: "=", maxSplits: 1).first ?? argument[...]
            guard name == configFlag || Setting.flagged(name) != nil else { return nil }
        }
        return Array(rest)
    }

    /// The value after `=`, else the next argument. A next argument that starts with `--` is taken for
    /// the next flag, so `--record --no-redact` says that `--record` lacks its directory.
    private static func value(of name: String, given: String?, from remaining: inout ArraySlice<String>)
        throws(ConfigurationError) -> String
    {
        if let given { return given }
        guard let next = remaining.first, !next.hasPrefix("--") else {
            throw ConfigurationError("\(name) needs a value (\(name)=VALUE for one that starts with --)")
        }
        remaining.removeFirst()
        return next
    }

    /// The settings part of `serve --help`: each flag with its value, then its description and its
    /// environment variable, wrapped to 78 columns.
    package static let help: String = {
        var lines = ["SETTINGS:"]
        let config = "JSON config file (default: ./campaign-mock.json if present)."
        lines += entry("\(configFlag) <file>", config, environmentVariable: "CAMPAIGN_MOCK_CONFIG")
        for setting in Setting.all {
            let flag =
                setting.form == .switch ? setting.flag : "\(setting.flag) <\(setting.flag.dropFirst(2))>"
            lines += entry(flag, setting.help, environmentVariable: setting.environmentVariable)
        }
        return lines.joined(separator: "\n")
    }()

    /// One flag's lines: the flag, then its description from column 9, wrapped before column 79
    /// (counted in bytes: the help is ASCII, and counting characters made building it a tenth of a start).
    private static func entry(_ flag: String, _ description: String, environmentVariable: String) -> [String] {
        let indent = "        "
        var lines = ["  " + flag]
        var line = indent
        for word in description.split(separator: " ").map(String.init) + ["[env: \(environmentVariable)]"] {
            if line.utf8.count + 1 + word.utf8.count > 78, line.utf8.count > indent.utf8.count {
                lines.append(line)
                line = indent
            }
            line += (line.utf8.count > indent.utf8.count ? " " : "") + word
        }
        lines.append(line)
        return lines
    }
}
