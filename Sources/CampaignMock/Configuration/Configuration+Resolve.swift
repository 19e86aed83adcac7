import CampaignMockModel
import CampaignMockPush
import CampaignMockSupport
package import CampaignMockSystem

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
            let file = try fileContents(configFile.contents, path: configFile.path)
            for (key, value) in file.values {
                try apply(key, value, to: &configuration, source: "\(configFile.path): \(key)")
            }
            if let applications = file.applications { configuration.applications = applications }
            configuration.faultRules = file.faultRules
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
        configuration.certificateAuthorityFolder = CertificateAuthorityFolder.path(environment: environment)
        // Keys given as text: the environment only (docs/push-on-device.md).
        configuration.sending.apnsKeyText = environment[Credential.apnsKeyVariable].flatMap { $0.isEmpty ? nil : $0 }
        configuration.sending.fcmServiceAccountText = environment[Credential.serviceAccountVariable].flatMap {
            $0.isEmpty ? nil : $0
        }
        try configuration.validate()
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

    /// A config file: its scalar settings as text, and its `apps` array when it has one.
    private struct FileContents {
        var values: [(String, String)] = []
        var applications: [Application]?
        var faultRules: [FaultRule] = []
    }

    /// Reads a JSON config file. `apps` may be a `PLATFORM:KEY[:NAME[:ID]]` list in a string, or an array of
    /// such strings or of `{"platform", "integrationKey", "name", "enabled", "bundleId", "packageName"}`
    /// objects.
    private static func fileContents(_ contents: [UInt8], path: String) throws(ConfigurationError) -> FileContents {
        if let problem = JSONCheck.problem(in: contents) {
            throw ConfigurationError("\(path): \(problem)")
        }
        let object: [String: JSONValue]
        do {
            object = try JSONDecoder().decode([String: JSONValue].self, from: Data(contents))
        } catch {
            throw ConfigurationError("\(path): expected a JSON object of settings, {\"port\": 9000, …}")
        }
        var file = FileContents()
        for key in object.keys.sorted() {
            if key == "apps", case .array(let entries) = object[key] {
                file.applications = try applications(entries, path: path)
                continue
            }
            if key == "faults" {
                file.faultRules = try faultRules(object[key] ?? .null, path: path)
                continue
            }
            // A repeated setting (`allowedHosts`, `tlsSans`) may be an array of strings.
            if case .array(let items) = object[key], Setting.named(key)?.form == .repeated {
                let texts = items.compactMap(\.scalarText)
                guard texts.count == items.count else {
                    throw ConfigurationError("\(path): \(key): expected an array of strings")
                }
                file.values.append((key, texts.joined(separator: "\n")))
                continue
            }
            guard let text = object[key]?.scalarText else {
                throw ConfigurationError("\(path): \(key): expected a string, number or boolean")
            }
            file.values.append((key, text))
        }
        return file
    }

    /// The `faults` array: rules as `POST /_mock/faults` takes them.
    private static func faultRules(_ value: JSONValue, path: String) throws(ConfigurationError) -> [FaultRule] {
        guard case .array(let entries) = value else {
            throw ConfigurationError("\(path): faults: expected an array of rules")
        }
        var rules: [FaultRule] = []
        for (index, entry) in entries.enumerated() {
            do {
                let rule = try JSONDecoder().decode(FaultRule.self, from: JSONEncoder().encode(entry))
                try rule.validate()
                rules.append(rule)
            } catch let error as FaultRuleError {
                throw ConfigurationError("\(path): faults[\(index)]: \(error.message)")
            } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
                let field = context.codingPath.map(\.stringValue).joined(separator: ".")
                throw ConfigurationError("\(path): faults[\(index)].\(field): \(context.debugDescription)")
            } catch {
                throw ConfigurationError("\(path): faults[\(index)]: not a fault rule (\(error))")
            }
        }
        return rules
    }

    private static func applications(_ entries: [JSONValue], path: String) throws(ConfigurationError) -> [Application] {
        var result: [Application] = []
        for (index, entry) in entries.enumerated() {
            let source = "\(path): apps[\(index)]"
            do {
                switch entry {
                case .string(let text):
                    result.append(try Application(specification: text))
                case .object(let fields):
                    result.append(try application(fields, source: source))
                default:
                    throw ConfigurationError("\(source): expected a string or an object")
                }
            } catch let error as ApplicationError {
                throw ConfigurationError("\(source): \(error.message)")
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw ConfigurationError("\(source): \(error)")
            }
        }
        do {
            return try Setting.checkedApplications(result)
        } catch {
            throw ConfigurationError("\(path): apps: \(error.message)")
        }
    }

    private static func application(_ fields: [String: JSONValue], source: String) throws -> Application {
        if let field = Set(fields.keys).subtracting([
            "platform", "integrationKey", "name", "enabled", "bundleId", "packageName",
        ]).sorted().first {
            throw ConfigurationError("\(source): unknown field '\(field)'")
        }
        guard case .string(let platformName)? = fields["platform"], let platform = Platform(rawValue: platformName),
            case .string(let key)? = fields["integrationKey"]
        else {
            throw ConfigurationError("\(source): needs \"platform\" (ios or android) and \"integrationKey\"")
        }
        var application = Application(
            name: Application.defaultName(platform, key), platform: platform, integrationKey: key)
        switch fields["name"] {
        case .string(let name)?: application.name = name
        case nil: break
        default: throw ConfigurationError("\(source): name must be a string")
        }
        switch fields["enabled"] {
        case .bool(let enabled)?: application.enabled = enabled
        case nil: break
        default: throw ConfigurationError("\(source): enabled must be true or false")
        }
        for (field, path) in [("bundleId", \Application.bundleId), ("packageName", \Application.packageName)] {
            switch fields[field] {
            case .string(let name)?: application[keyPath: path] = name
            case nil: break
            default: throw ConfigurationError("\(source): \(field) must be a string")
            }
        }
        try application.validate()
        return application
    }
}
