import ArgumentParser
import CampaignMockNetwork
import CampaignMockRecording

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `campaign-mock replay`: send a recording's requests to a server and compare the answers.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Send recorded requests to a server and compare its answers with the recorded ones.",
        discussion: """
            PATH is a recording directory (its numbered *.json files, in order) or exchange files. \
            Prints PASS or FAIL per exchange, a line per difference, and "N passed, N failed". \
            Exit code 0 when every answer matches, 1 otherwise, 2 for bad arguments or files. \
            Placeholders of a redacted recording are filled from the recording's secrets.json (written by \
            serve --record, kept out of git), then CAMPAIGN_MOCK_SECRET_<name> (integrationKey_1 for \
            redacted-integrationKey-1), then --secret.
            Example: campaign-mock replay recording/ --target http://127.0.0.1:8080
            """
    )

    @Argument(help: "Recording directories or exchange files.") var paths: [String]
    @Option(help: "The server to replay against (http:// or https://).") var target: String
    @Option(name: .customLong("ignore-header"), help: "A response header not to compare (repeatable).")
    var ignoredHeaders: [String] = []
    @Option(name: .customLong("secret"), help: "A placeholder's value, NAME=VALUE (repeatable).")
    var secrets: [String] = []
    @Flag(name: .customLong("fail-fast"), help: "Stop at the first mismatch.") var failFast = false
    @Option(help: "More CAs (PEM file) to trust for an https target.") var ca: String?

    func run() throws {
        let endpoint: HTTPClient.Endpoint
        do {
            endpoint = try HTTPClient.Endpoint(url: target, allowHTTPS: true)
        } catch {
            throw CommandFailure(message: "error: --target: \(error.message)", code: 2)
        }
        var tls: TLSClientContext?
        if endpoint.isSecure {
            do {
                tls = try TLSClientContext(extraCAFile: ca)
            } catch {
                throw CommandFailure(message: "error: --ca: \(error)", code: 2)
            }
        }
        let sources = try exchangeSources()
        var bindings = Bindings()
        for directory in sources.compactMap(\.directory) {
            do {
                for (name, value) in try RecordingDirectory.secrets(of: directory) { bindings.setSecret(name, value) }
            } catch {
                throw CommandFailure(message: "error: \(error.message)", code: 2)
            }
        }
        try addSecrets(to: &bindings)
        var replayer = Replayer(target: endpoint, bindings: bindings, ignoredHeaders: ignoredHeaders, tls: tls)
        var exchanges: [(file: String, recordingID: String?, exchange: Exchange)] = []
        for source in sources {
            let recordingID = source.directory.flatMap(RecordingDirectory.id(of:))
            for file in source.files {
                do {
                    exchanges.append((file, recordingID, try Exchange.read(path: file)))
                } catch {
                    throw CommandFailure(message: "error: \(error.message)", code: 2)
                }
            }
        }
        var passed = 0
        var failed = 0
        for (file, recordingID, exchange) in exchanges {
            replayer.recordingID = recordingID
            let result = replayer.replay(exchange, file: file)
            // What the server answered is in the report: each line escaped.
            for line in Replayer.report(result).split(separator: "\n", omittingEmptySubsequences: false) {
                Output.standardOutput(TerminalText(String(line)))
            }
            if result.passed { passed += 1 } else { failed += 1 }
            if failFast && !result.passed { break }
        }
        let skipped = exchanges.count - passed - failed
        Output.standardOutput("\(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) not run" : ""))
        if failed > 0 { Output.exitProcess(1) }
    }

    /// The files to replay, in order, with the recording directory they belong to (nil for files named
    /// one by one).
    private func exchangeSources() throws -> [(directory: String?, files: [String])] {
        var sources: [(directory: String?, files: [String])] = []
        for path in paths {
            guard SystemCalls.isReadable(path) else {
                throw CommandFailure(message: "error: cannot read \(path)", code: 2)
            }
            if SystemCalls.isDirectory(path) {
                let trimmed = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
                let listed = ExchangeFiles.list(trimmed)
                guard !listed.isEmpty else {
                    throw CommandFailure(message: "error: \(path) holds no exchange files (NNNN-….json)", code: 2)
                }
                sources.append((trimmed, listed))
            } else {
                sources.append((nil, [path]))
            }
        }
        return sources
    }

    /// `--secret` values over `CAMPAIGN_MOCK_SECRET_*`, both over the recordings' `secrets.json`.
    private func addSecrets(to bindings: inout Bindings) throws {
        let prefix = "CAMPAIGN_MOCK_SECRET_"
        for (name, value) in ProcessInfo.processInfo.environment where name.hasPrefix(prefix) {
            bindings.setSecret(String(name.dropFirst(prefix.count)).replacing("_", with: "-"), value)
        }
        for secret in secrets {
            let parts = secret.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw CommandFailure(message: "error: --secret must be NAME=VALUE, got '\(secret)'", code: 2)
            }
            bindings.setSecret(String(parts[0]), String(parts[1]))
        }
    }
}
