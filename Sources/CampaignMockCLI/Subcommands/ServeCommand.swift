import ArgumentParser
import CampaignMock
import CampaignMockModel
import CampaignMockSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `campaign-mock serve`: runs the server until SIGINT or SIGTERM.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server (the default command).",
        usage: "campaign-mock serve [--SETTING VALUE] [--SWITCH] ...",
        discussion: """
            Settings come from flags, then CAMPAIGN_MOCK_* environment variables, then a JSON config file \
            (--config, or ./campaign-mock.json when present), then built-in defaults. The config file uses \
            the setting names in camelCase, e.g. {"port": 9000, "journalLimit": 500}.
            Sizes: 512, 64KiB, 1MiB. Durations: 500ms, 10s, 2m (a bare number is seconds).

            """ + "\n" + ServeArguments.help
    )

    /// Every argument after `serve`, read by ``ServeArguments`` from the setting table.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp(visibility: .hidden)) var arguments: [String] = []

    func run() throws {
        try Self.serve(arguments)
    }

    /// Runs the server with the settings of `arguments` (the command line after `serve`).
    /// ``CampaignMockCommand/main()`` calls it directly when the command line is serve's alone.
    static func serve(_ arguments: [String]) throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration: Configuration
        do {
            let given = try ServeArguments(parsing: arguments)
            configuration = try Configuration.resolve(
                flags: given.flags, environment: environment, configFile: try configFile(given.configFile, environment))
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
        Output.standardOutput("\(trusted: server.app.banner(command: Invocation.command))")

        let signal = ShutdownSignals.wait()
        logger.info("received \(SystemCalls.name(ofSignal: signal)), shutting down")
        server.shutdown()
        logger.info("stopped")
    }

    /// The config file named by --config or CAMPAIGN_MOCK_CONFIG, or ./campaign-mock.json when present.
    private static func configFile(_ flag: String?, _ environment: [String: String]) throws -> (
        path: String, contents: [UInt8]
    )? {
        let named = flag ?? environment["CAMPAIGN_MOCK_CONFIG"]
        let path = named ?? "campaign-mock.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            if named != nil { throw CommandFailure(message: "error: cannot read the config file \(path)", code: 2) }
            return nil
        }
        return (path, Array(data))
    }
}
