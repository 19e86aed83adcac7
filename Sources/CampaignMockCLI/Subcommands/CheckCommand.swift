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
            Example (the last step of a UI-test job): campaign-mock check --wait --fail-on error --format junit
            --wait first waits out an open's window for its receive (10 s by default): a finding that may \
            still appear is counted. The 2-minute window of a send for its receive is not waited for.
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
    @Option(help: "Only the findings since this mark (POST /_mock/mark) or RFC 3339 time.") var since: String?
    /// How the findings are written on standard output.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, junit, github
    }
    @Option(
        help: "text (default), json (the server's answer), junit (JUnit XML) or github (GitHub Actions annotations).")
    var format: Format = .text
    @Flag(help: "The same as --format json.") var json = false
    @Flag(help: "First wait out the open windows in which a finding may still appear (an open's receive, 10 s).")
    var wait = false

    func run() throws {
        let format = json ? .json : format
        var (response, report) = try fetch()
        var waited: String?
        if wait { (response, report, waited) = try waitOutTheOpenWindow(after: (response, report)) }
        let threshold = failOn.severity
        // The JUnit and GitHub documents escape what the app sent themselves (CheckReportFormats), as each
        // line of a finding's text does; the rest is the command's own words.
        switch format {
        case .json: Output.json(response.text)
        case .junit: Output.standardOutput("\(trusted: CheckReportFormats.junit(report, failingAt: threshold))")
        case .github:
            let annotations = CheckReportFormats.github(report, failingAt: threshold)
            if !annotations.isEmpty { Output.standardOutput("\(trusted: annotations)") }
        case .text:
            if let waited { Output.standardOutput("\(trusted: waited)") }
            for finding in report.findings { Output.standardOutput("\(trusted: Self.text(of: finding))") }
            Output.standardOutput("\(trusted: Self.summary(report.counts))")
        }
        // Standard output holds the document alone: what the command did goes to standard error.
        if format != .text, let waited { Output.standardError("\(trusted: waited)") }
        guard let threshold else { return }
        let failing = report.findings.count { $0.severity >= threshold }
        if failing > 0 {
            throw CommandFailure(
                message:
                    "campaign-mock check: \(failing) finding\(failing == 1 ? "" : "s") at or above \(threshold.rawValue)",
                code: 1)
        }
    }

    /// `--wait`: once an open's window for its receive has closed (at most one window: what came in
    /// meanwhile is the app still running, not this check's to wait for), the report again; and what the
    /// command says it did.
    private func waitOutTheOpenWindow(after first: (HTTPClient.Response, CheckReport)) throws
        -> (HTTPClient.Response, CheckReport, String)
    {
        var (response, report) = first
        var said = "campaign-mock check: no open was waiting for its receive; nothing to wait for"
        if let window = report.windows?.openReceive, window.closesInMilliseconds > 0 {
            // The window's own length bounds the wait, whatever a server answers.
            let milliseconds = max(0, min(window.closesInMilliseconds, window.lengthMilliseconds, 600_000)) + 100
            SystemCalls.sleep(milliseconds: milliseconds)
            (response, report) = try fetch()
            said =
                "campaign-mock check: waited \(Self.seconds(milliseconds)) s for the receive window of "
                + "\(window.waiting) open\(window.waiting == 1 ? "" : "s") (\(Self.seconds(window.lengthMilliseconds)) s)"
        }
        if let sends = report.windows?.sentReceive, sends.closesInMilliseconds > 0 {
            said +=
                "; not waited for: \(sends.waiting) send\(sends.waiting == 1 ? "" : "s") within the "
                + "\(Self.seconds(sends.lengthMilliseconds)) s window for its receive (sent-not-received)"
        }
        return (response, report, said)
    }

    private func fetch() throws -> (HTTPClient.Response, CheckReport) {
        let endpoint = try connection.endpoint()
        let query = [("app", app), ("since", since)].compactMap { name, value in
            value.map { "\(name)=" + PercentEncoding.encodeComponent($0) }
        }
        let path = "/_mock/checks" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
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
        return (response, report)
    }

    /// `8.3`: milliseconds as seconds with one decimal.
    static func seconds(_ milliseconds: Int) -> String {
        "\(milliseconds / 1000).\(milliseconds % 1000 / 100)"
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
