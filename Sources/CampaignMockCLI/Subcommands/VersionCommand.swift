import ArgumentParser

/// `campaign-mock version`.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Print the version.")

    func run() {
        print(BuildInfo.versionLine)
    }
}
