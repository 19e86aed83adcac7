import ArgumentParser
import CampaignMock
import CampaignMockNetwork

/// The `campaign-mock` command.
@main
struct CampaignMockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "campaign-mock",
        abstract: "A local stand-in for the Adobe Campaign servers that the Campaign mobile SDKs talk to.",
        version: BuildInfo.versionLine,
        subcommands: [
            ServeCommand.self, PushCommand.self, TailCommand.self, ReplayCommand.self, CertificateAuthorityCommand.self,
            CheckCommand.self, HealthCommand.self, VersionCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )

    /// Runs the command; usage errors exit with 2, failures with 1.
    ///
    /// A command line of serve's alone (`serve` or nothing first, then only setting flags) runs the server
    /// without swift-argument-parser: serve reads its flags from the setting table anyway, and the parser's
    /// own work on every command line (the command tree, its checks for help and completion requests) was a
    /// third of the instructions of a start. Every other command line, help included, goes through it.
    static func main() {
        Socket.ignoreBrokenPipeSignal()
        do {
            if let serveArguments = ServeArguments.serveOnly(Array(CommandLine.arguments.dropFirst())) {
                try ServeCommand.serve(serveArguments)
                return
            }
            try refuseUnknownCommand(Array(CommandLine.arguments.dropFirst()))
            var command = try parseAsRoot()
            try command.run()
        } catch let error as CommandFailure {
            Output.standardError(error.message)
            Output.exitProcess(error.code)
        } catch {
            if exitCode(for: error) == .validationFailure {
                Output.standardError("\(trusted: fullMessage(for: error))")
                Output.standardError("See 'campaign-mock --help'.")
                Output.exitProcess(2)
            }
            exit(withError: error)
        }
    }
}

extension CampaignMockCommand {
    /// A first word that is neither a command nor a flag (`campaign-mock start`) is refused with the list
    /// of commands; without this it would reach `serve`, the default command, as a stray argument.
    static func refuseUnknownCommand(_ arguments: [String]) throws(CommandFailure) {
        guard let first = arguments.first, !first.hasPrefix("-") else { return }
        let names = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        guard !names.contains(first) else { return }
        let commands = configuration.subcommands.map { command in
            let name = command.configuration.commandName ?? ""
            return "  " + name + String(repeating: " ", count: max(1, 9 - name.count)) + command.configuration.abstract
        }
        let synonyms = [
            "start": "serve", "run": "serve", "server": "serve", "logs": "tail", "log": "tail", "cert": "ca",
        ]
        let guess = (synonyms[first] ?? names.first { $0.hasPrefix(first) }).map { " Did you mean '\($0)'?" } ?? ""
        throw CommandFailure(
            message: "error: '\(first)' is not a campaign-mock command.\(trusted: guess) The commands:\n"
                + "\(trusted: commands.joined(separator: "\n"))\nSee 'campaign-mock COMMAND --help'.",
            code: 2)
    }
}

/// A failure with the exit code to leave with: 2 for bad settings, 1 for everything else. Its message is
/// printed through ``Output``: what a server said in it is escaped.
struct CommandFailure: Error {
    let message: TerminalText
    let code: Int32
}
