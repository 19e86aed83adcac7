import ArgumentParser
import CampaignMockHTTP
import CampaignMockModel
import CampaignMockNetwork
import CampaignMockSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `campaign-mock check`: what the integration checks of a running server found (`GET /_mock/checks`,
/// docs/checks.md), for a person and for CI: the exit code says whether any finding is at or above
/// `--fail-on`.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Print what the integration checks found; exit 1 when a finding is at or above --fail-on.",
        discussion: """
            Exit codes: 0 when no finding is at or above --fail-on, 1 when some are, 2 when the server cannot be \
            reached or answers an error (or the command line is wrong).
            Example (the last step of a UI-test job): campaign-mock check --fail-on error
            """
    )

    /// The severity that fails the command, or `never`.
    enum FailOn: String, ExpressibleByArgument, CaseIterable {
        case error, warning, info, never

        var severity: CheckSeverity? { CheckSeverity(rawValue: rawValue) }
    }

    @OptionGroup var connection: ServerOptions
    @Option(
        name: .customLong("fail-on"),
        help: "Exit 1 when a finding is at or above this: error (default), warning, info or never.")
    var failOn: FailOn = .error
    @Option(help: "Only the findings about this application (integration key).") var app: String?
    @Flag(help: "Print the server's JSON answer instead.") var json = false

    func run() throws {
        let endpoint = try connection.endpoint()
        let path = "/_mock/checks" + (app.map { "?app=" + PercentEncoding.encodeComponent($0) } ?? "")
        let response: HTTPClient.Response
        do {
            response = try HTTPClient.send(.get, path, to: endpoint, headers: connection.authorized())
        } catch {
            throw CommandFailure(message: "error: \(endpoint.authority): \(error)", code: 2)
        }
        guard response.status == 200,
            let report = try? JSONDecoder().decode(CheckReport.self, from: Data(response.body))
        else {
            throw CommandFailure(
                message: "error: the server answered \(response.status): \(response.refusalReason)", code: 2)
        }
        if json {
            Output.json(response.text)
        } else {
            // Each line of a finding is escaped already.
            for finding in report.findings { Output.standardOutput("\(trusted: Self.text(of: finding))") }
            Output.standardOutput("\(Self.summary(report.counts))")
        }
        guard let threshold = failOn.severity else { return }
        let failing = report.findings.count { $0.severity >= threshold }
        if failing > 0 {
            throw CommandFailure(
                message:
                    "campaign-mock check: \(failing) finding\(failing == 1 ? "" : "s") at or above \(threshold.rawValue)",
                code: 1)
        }
    }

    /// A finding in a few lines: severity, rule and subject; the title; what happened; the fix; the doc.
    static func text(of finding: CheckFinding) -> String {
        let subject = [
            finding.app, finding.registrationToken.map { "token=\($0)" },
            finding.messageId.map {
                "message=\($0)"
            },
        ].compactMap { $0 }.joined(separator: " ")
        let head =
            "\(finding.severity.rawValue.uppercased()) \(finding.rule)" + (subject.isEmpty ? "" : " \(subject)")
            + (finding.count > 1 ? " (\(finding.count) times, last \(finding.lastSeen))" : " (\(finding.lastSeen))")
        let lines = [
            head, "  \(finding.title)", "  \(finding.message)", "  Fix: \(finding.fix)", "  See \(finding.doc)", "",
        ]
        // What the app sent (a token with ESC in it) is shown, not executed.
        return lines.map(PrintableText.escaped).joined(separator: "\n")
    }

    static func summary(_ counts: CheckReport.Counts) -> String {
        func count(_ number: Int, _ word: String) -> String { "\(number) \(word)\(number == 1 ? "" : "s")" }
        return "\(count(counts.error, "error")), \(count(counts.warning, "warning")), \(counts.info) info"
    }
}
