import ArgumentParser
import CampaignMock
import CampaignMockCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `campaign-mock serve`: runs the server until SIGINT or SIGTERM.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server (the default command).",
        discussion: """
            Settings come from flags, then CAMPAIGN_MOCK_* environment variables, then a JSON config file \
            (--config, or ./campaign-mock.json when present), then built-in defaults. The config file uses \
            the setting names in camelCase, e.g. {"port": 9000, "journalLimit": 500}.
            Sizes: 512, 64KiB, 1MiB. Durations: 500ms, 10s, 2m (a bare number is seconds).
            """
    )

    @Option(help: help("host")) var host: String?
    @Option(help: help("port")) var port: String?
    @Option(name: .customLong("data-dir"), help: help("dataDir")) var dataDir: String?
    @Flag(name: .customLong("in-memory"), help: help("inMemory")) var inMemory = false
    @Option(
        help: ArgumentHelp(
            "JSON config file [env: CAMPAIGN_MOCK_CONFIG] (default: ./campaign-mock.json if present).",
            valueName: "file"))
    var config: String?
    @Option(help: help("logLevel")) var logLevel: String?
    @Option(help: help("logFormat")) var logFormat: String?
    @Option(help: help("journalLimit")) var journalLimit: String?
    @Option(help: help("maxBodySize")) var maxBodySize: String?
    @Option(help: help("maxHeaderSize")) var maxHeaderSize: String?
    @Option(help: help("maxHeaderCount")) var maxHeaderCount: String?
    @Option(help: help("maxRequestLine")) var maxRequestLine: String?
    @Option(help: help("maxConnections")) var maxConnections: String?
    @Option(help: help("headerTimeout")) var headerTimeout: String?
    @Option(help: help("bodyTimeout")) var bodyTimeout: String?
    @Option(help: help("idleTimeout")) var idleTimeout: String?
    @Option(help: help("shutdownGrace")) var shutdownGrace: String?
    @Option(help: help("eventLoops")) var eventLoops: String?
    @Option(name: .customLong("app"), help: help("apps")) var apps: [String] = []
    @Flag(name: .customLong("strict-tracking"), help: help("strictTracking")) var strictTracking = false
    @Option(help: help("adminToken")) var adminToken: String?
    @Option(help: help("tls")) var tls: String?
    @Option(help: help("tlsPort")) var tlsPort: String?
    @Option(help: help("tlsCert")) var tlsCert: String?
    @Option(help: help("tlsKey")) var tlsKey: String?
    @Option(name: .customLong("tls-san"), help: help("tlsSans")) var tlsSans: [String] = []
    @Flag(name: .customLong("no-http"), help: help("noHttp")) var noHTTP = false
    @Option(help: help("soapLogin")) var soapLogin: String?
    @Option(help: help("soapPassword")) var soapPassword: String?
    @Option(name: .customLong("soap-bearer-token"), help: help("soapBearerTokens")) var soapBearerTokens: [String] =
        []
    @Option(help: help("soapSessionTimeout")) var soapSessionTimeout: String?
    @Option(help: help("pushIdStyle")) var pushIdStyle: String?
    @Option(help: help("record")) var record: String?
    @Flag(name: .customLong("no-redact"), help: help("noRedact")) var noRedact = false
    @Option(help: help("upstream")) var upstream: String?
    @Option(name: .customLong("upstream-ca"), help: help("upstreamCa")) var upstreamCA: String?

    /// The help line of a setting, with its environment variable.
    /// A setting's help line. Made once for all settings: the parser makes the command several times
    /// while it reads the arguments, and making these lines each time was a tenth of the time to start.
    private static func help(_ key: String) -> ArgumentHelp { helpLines[key]! }

    private static let helpLines: [String: ArgumentHelp] = Dictionary(
        uniqueKeysWithValues: Setting.all.map { setting in
            (setting.key, ArgumentHelp("\(setting.help) [env: \(setting.environmentVariable)]"))
        })

    /// The flags given, keyed like the settings.
    private var flags: [String: String] {
        let values: [String: String?] = [
            "host": host, "port": port, "dataDir": dataDir, "inMemory": inMemory ? "true" : nil,
            "logLevel": logLevel, "logFormat": logFormat, "journalLimit": journalLimit,
            "maxBodySize": maxBodySize, "maxHeaderSize": maxHeaderSize, "maxHeaderCount": maxHeaderCount,
            "maxRequestLine": maxRequestLine, "maxConnections": maxConnections, "headerTimeout": headerTimeout,
            "bodyTimeout": bodyTimeout, "idleTimeout": idleTimeout, "shutdownGrace": shutdownGrace,
            "eventLoops": eventLoops, "apps": apps.isEmpty ? nil : apps.joined(separator: "\n"),
            "strictTracking": strictTracking ? "true" : nil, "adminToken": adminToken, "tls": tls,
            "tlsPort": tlsPort, "tlsCert": tlsCert, "tlsKey": tlsKey,
            "tlsSans": tlsSans.isEmpty ? nil : tlsSans.joined(separator: "\n"), "noHttp": noHTTP ? "true" : nil,
            "soapLogin": soapLogin, "soapPassword": soapPassword, "soapSessionTimeout": soapSessionTimeout,
            "soapBearerTokens": soapBearerTokens.isEmpty ? nil : soapBearerTokens.joined(separator: "\n"),
            "pushIdStyle": pushIdStyle, "record": record, "noRedact": noRedact ? "true" : nil, "upstream": upstream,
            "upstreamCa": upstreamCA,
        ]
        return values.compactMapValues { $0 }
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration: Configuration
        do {
            configuration = try Configuration.resolve(
                flags: flags, environment: environment, configFile: try configFile(environment))
        } catch let error as ConfigurationError {
            throw CommandFailure(message: "error: \(error.message)", code: 2)
        }
        let logger = Logger(level: configuration.logLevel, format: configuration.logFormat)

        ShutdownSignals.block()
        let server: CampaignMockServer
        do {
            server = try CampaignMockServer(configuration: configuration, logger: logger)
        } catch {
            throw CommandFailure(message: "error: cannot start: \(error)", code: 1)
        }
        Output.standardOutput(server.banner(command: Invocation.command))

        let signal = ShutdownSignals.wait()
        logger.info("received \(signal == SIGINT ? "SIGINT" : "SIGTERM"), shutting down")
        server.shutdown()
        logger.info("stopped")
    }

    /// The config file named by --config or CAMPAIGN_MOCK_CONFIG, or ./campaign-mock.json when present.
    private func configFile(_ environment: [String: String]) throws -> (path: String, contents: [UInt8])? {
        let named = config ?? environment["CAMPAIGN_MOCK_CONFIG"]
        let path = named ?? "campaign-mock.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            if named != nil { throw CommandFailure(message: "error: cannot read the config file \(path)", code: 2) }
            return nil
        }
        return (path, Array(data))
    }
}
