import CampaignMockModel

/// The findings as CI systems read them: a JUnit XML report (``junit(_:failingAt:)``) and GitHub Actions
/// annotations (``github(_:failingAt:)``). What the apps sent (a token, a key) is in the words, so both
/// escape everything they write: no text can end the document or the command, or reach the terminal as a
/// control character.
enum CheckReportFormats {
    // MARK: - JUnit XML

    /// One test case per finding (a rule and its subject), failed when the finding is at or above
    /// `threshold`; one passing case when there is no finding, so the suite is never empty.
    static func junit(_ report: CheckReport, failingAt threshold: CheckSeverity?) -> String {
        let failing = report.findings.filter { finding in threshold.map { finding.severity >= $0 } ?? false }
        let cases = max(report.findings.count, 1)
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites name="campaign-mock check" tests="\#(cases)" failures="\#(failing.count)">"# + "\n"
        xml +=
            #"  <testsuite name="campaign-mock integration checks" tests="\#(cases)" failures="\#(failing.count)" "#
            + #"errors="0" skipped="0">"# + "\n"
        if report.findings.isEmpty {
            xml += #"    <testcase classname="campaign-mock.checks" name="no findings"/>"# + "\n"
        }
        for finding in report.findings {
            let name = attribute(finding.id)
            xml +=
                #"    <testcase classname="campaign-mock.checks.\#(attribute(finding.rule))" name="\#(name)">"# + "\n"
            let words = text(finding)
            if let threshold, finding.severity >= threshold {
                xml +=
                    #"      <failure type="\#(attribute(finding.rule))" message="\#(attribute(finding.title))">"#
                    + content(words) + "</failure>\n"
            } else {
                xml += "      <system-out>" + content(words) + "</system-out>\n"
            }
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>"
        return xml
    }

    /// What a finding says, in a failure's text.
    private static func text(_ finding: CheckFinding) -> String {
        "\(finding.severity.rawValue.uppercased()) \(finding.rule): \(finding.title)\n\(finding.message)\n"
            + "Fix: \(finding.fix)\nSee \(finding.doc)"
    }

    /// Text for an element's content: markup escaped, and the characters XML 1.0 cannot hold at all (even
    /// as a character reference: C0 controls but tab, newline and carriage return; U+FFFE, U+FFFF), with
    /// DEL and the C1 controls, shown as `\u{1B}`.
    static func content(_ text: String) -> String {
        xmlEscaped(text, inAttribute: false)
    }

    /// Text for an attribute's value in double quotes: as ``content(_:)``, with quotes escaped and tab,
    /// newline and carriage return as character references (an attribute's value normalizes them away).
    static func attribute(_ text: String) -> String {
        xmlEscaped(text, inAttribute: true)
    }

    private static func xmlEscaped(_ text: String, inAttribute: Bool) -> String {
        replacing(text) { value in
            switch value {
            case 0x26: "&amp;"
            case 0x3C: "&lt;"
            case 0x3E: "&gt;"
            case 0x22 where inAttribute: "&quot;"
            case 0x09, 0x0A, 0x0D: inAttribute ? "&#\(value);" : nil
            case 0..<0x20, 0x7F, 0x80..<0xA0, 0xFFFE, 0xFFFF: visible(value)
            default: nil
            }
        }
    }

    /// `text` with each scalar that `replacement` gives a text for replaced by it.
    private static func replacing(_ text: String, _ replacement: (UInt32) -> String?) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let replaced = replacement(scalar.value) {
                result += replaced
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `\u{1B}`: a control character as text.
    private static func visible(_ value: UInt32) -> String {
        "\\u{" + String(value, radix: 16, uppercase: true) + "}"
    }

    // MARK: - GitHub Actions

    /// A workflow command per finding: `::error` at or above `threshold`, else `::warning` for a warning and
    /// `::notice` for information; the title names the rule, the message says what happened and the fix.
    static func github(_ report: CheckReport, failingAt threshold: CheckSeverity?) -> String {
        report.findings.map { finding in
            let command: String
            if let threshold, finding.severity >= threshold {
                command = "error"
            } else {
                command = finding.severity == .info ? "notice" : "warning"
            }
            let title = "\(finding.rule): \(finding.title)"
            let message = "\(finding.message) Fix: \(finding.fix) See \(finding.doc)"
            return "::\(command) title=\(property(title))::\(data(message))"
        }.joined(separator: "\n")
    }

    /// A command's message: `%`, carriage return and newline as `%25`, `%0D`, `%0A` (what the runner
    /// decodes), so the text cannot start a command of its own on a new line; other control characters
    /// shown as `\u{1B}`.
    static func data(_ text: String) -> String {
        workflowEscaped(text, property: false)
    }

    /// A command's property value: as ``data(_:)``, and `:` and `,` as `%3A` and `%2C`, which end it.
    static func property(_ text: String) -> String {
        workflowEscaped(text, property: true)
    }

    private static func workflowEscaped(_ text: String, property: Bool) -> String {
        replacing(text) { value in
            switch value {
            case 0x25: "%25"
            case 0x0D: "%0D"
            case 0x0A: "%0A"
            case 0x3A where property: "%3A"
            case 0x2C where property: "%2C"
            case 0..<0x20, 0x7F, 0x80..<0xA0: visible(value)
            default: nil
            }
        }
    }
}
