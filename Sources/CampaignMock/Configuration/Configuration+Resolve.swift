#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Configuration {
    /// Builds the configuration: defaults < config file < environment < flags.
    ///
    /// - Parameters:
    ///   - flags: setting key → value, for the flags given on the command line.
    ///   - environment: the process environment (`CAMPAIGN_MOCK_*` is read from it).
    ///   - configFile: contents of the JSON config file, if any, and its path for messages.
    /// - Throws: ``ConfigurationError`` naming the source and the setting.
    package static func resolve(
        flags: [String: String],
        environment: [String: String],
        configFile: (path: String, contents: [UInt8])?
    ) throws(ConfigurationError) -> Configuration {
        var configuration = Configuration()
        if let configFile {
            for (key, value) in try fileValues(configFile.contents, path: configFile.path) {
                try apply(key, value, to: &configuration, source: "\(configFile.path): \(key)")
            }
        }
        for setting in Setting.all {
            if let value = environment[setting.environmentVariable] {
                try apply(setting.key, value, to: &configuration, source: setting.environmentVariable)
            }
        }
        for setting in Setting.all {
            if let value = flags[setting.key] {
                try apply(setting.key, value, to: &configuration, source: setting.flag)
            }
        }
        return configuration
    }

    private static func apply(_ key: String, _ value: String, to configuration: inout Configuration, source: String)
        throws(ConfigurationError)
    {
        guard let setting = Setting.named(key) else {
            let known = Setting.all.map(\.key).joined(separator: ", ")
            throw ConfigurationError("\(source): unknown setting (known: \(known))")
        }
        do {
            try setting.apply(&configuration, value)
        } catch let error as ConfigurationError {
            throw ConfigurationError("\(source): \(error.message)")
        } catch {
            throw ConfigurationError("\(source): \(error)")
        }
    }

    /// The scalar settings of a JSON config file, as text.
    private static func fileValues(_ contents: [UInt8], path: String) throws(ConfigurationError) -> [(String, String)] {
        let object: [String: JSONValue]
        do {
            object = try JSONDecoder().decode([String: JSONValue].self, from: Data(contents))
        } catch {
            throw ConfigurationError("\(path): not a JSON object of settings (\(error))")
        }
        var values: [(String, String)] = []
        for key in object.keys.sorted() {
            guard let text = object[key]?.scalarText else {
                throw ConfigurationError("\(path): \(key): expected a string, number or boolean")
            }
            values.append((key, text))
        }
        return values
    }
}
