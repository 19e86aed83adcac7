import CampaignMockHTTP
import CampaignMockSupport

/// Compares an answer with the recorded one: the status, the recorded headers, and the body
/// structurally (XML as a tree, forms as fields, other text by lines), with placeholders and
/// volatile values matched by rule (docs/recording.md, "Replay"). Learns bindings as it goes.
struct ExchangeComparison {
    var bindings: Bindings
    /// Response headers not compared (lowercased), besides the connection-level ones.
    var ignoredHeaders: Set<String>
    private(set) var differences: [String] = []

    init(bindings: Bindings, ignoredHeaders: Set<String>) {
        self.bindings = bindings
        self.ignoredHeaders = ignoredHeaders
    }

    mutating func compare(_ recorded: Exchange.Message, status: Int, headers: HTTPHeaders, body: [UInt8]) {
        if recorded.status != status {
            differences.append("status: expected \(recorded.status ?? 0), got \(status)")
        }
        for (name, value) in recorded.headerPairs
        where !ignoredHeaders.contains(name.lowercased())
            && !HTTPHeaderName(rawValue: name).isPerConnection
        {
            guard let actual = headers[HTTPHeaderName(rawValue: name)] else {
                differences.append("header \(name): expected \(quoted(value)), missing")
                continue
            }
            if !matches(value, actual) {
                differences.append("header \(name): expected \(quoted(value)), got \(quoted(actual))")
            }
        }
        compareBodies(recorded, body, contentType: headers[.contentType] ?? "")
    }

    // MARK: - Bodies

    private mutating func compareBodies(_ recorded: Exchange.Message, _ body: [UInt8], contentType: String) {
        let expected = recorded.bodyBytes
        if recorded.bodyBase64 != nil || String(validating: body, as: UTF8.self) == nil {
            if expected != body { differences.append("body: the bytes differ (\(expected.count) vs \(body.count))") }
            return
        }
        let actualText = String(decoding: body, as: UTF8.self)
        let expectedText = recorded.body ?? ""
        if recorded.xml != nil, let expectedRoot = try? XMLReader.parse(expected) {
            guard let actualRoot = try? XMLReader.parse(body) else {
                differences.append("body: expected XML, got \(quoted(String(actualText.prefix(200))))")
                return
            }
            compareElements(expectedRoot, actualRoot, path: "")
        } else if recorded.form != nil, let expectedFields = PercentEncoding.queryItems(expectedText),
            contentType.lowercased().hasPrefix("application/x-www-form-urlencoded")
        {
            compareFields(expectedFields, PercentEncoding.queryItems(actualText) ?? [])
        } else {
            compareLines(expectedText, actualText)
        }
    }

    private mutating func compareElements(_ expected: MarkupElement, _ actual: MarkupElement, path: String) {
        let here = "\(path)/\(expected.localName)"
        guard expected.localName == actual.localName, expected.namespace == actual.namespace else {
            differences.append("body \(here): expected element <\(expected.name)>, got <\(actual.name)>")
            return
        }
        for attribute in expected.attributes {
            guard
                let other = actual.attributes.first(where: {
                    $0.localName == attribute.localName && $0.namespace == attribute.namespace
                })
            else {
                differences.append("body \(here)/@\(attribute.name): expected \(quoted(attribute.value)), missing")
                continue
            }
            if !matches(attribute.value, other.value) {
                differences.append(
                    "body \(here)/@\(attribute.name): expected \(quoted(attribute.value)), got \(quoted(other.value))")
            }
        }
        for attribute in actual.attributes
        where !expected.attributes.contains(where: {
            $0.localName == attribute.localName && $0.namespace == attribute.namespace
        }) {
            differences.append("body \(here)/@\(attribute.name): not expected, got \(quoted(attribute.value))")
        }
        let expectedText = expected.hasText ? expected.text.trimmingASCIISpaces() : ""
        let actualText = actual.hasText ? actual.text.trimmingASCIISpaces() : ""
        if !matches(expectedText, actualText) {
            differences.append("body \(here): expected text \(quoted(expectedText)), got \(quoted(actualText))")
        }
        let expectedChildren = expected.elements
        let actualChildren = actual.elements
        if expectedChildren.count != actualChildren.count {
            differences.append(
                "body \(here): expected \(expectedChildren.count) child element(s), got \(actualChildren.count)")
        }
        for (index, pair) in zip(expectedChildren, actualChildren).enumerated() {
            let sameNames = expectedChildren.filter { $0.localName == pair.0.localName }.count > 1
            compareElements(pair.0, pair.1, path: sameNames ? "\(here)[\(index + 1)]" : here)
        }
    }

    private mutating func compareFields(
        _ expected: [(name: String, value: String)], _ actual: [(name: String, value: String)]
    ) {
        if expected.map(\.name) != actual.map(\.name) {
            differences.append(
                "body: expected fields \(expected.map(\.name).joined(separator: ", ")), "
                    + "got \(actual.map(\.name).joined(separator: ", "))")
        }
        for field in expected {
            guard let other = actual.first(where: { $0.name == field.name }) else { continue }
            if !matches(field.value, other.value) {
                differences.append(
                    "body field \(field.name): expected \(quoted(field.value)), got \(quoted(other.value))")
            }
        }
    }

    private mutating func compareLines(_ expected: String, _ actual: String) {
        if expected.isEmpty != actual.isEmpty {
            differences.append(
                expected.isEmpty
                    ? "body: expected none, got \(quoted(actual))" : "body: expected \(quoted(expected)), got none")
            return
        }
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for index in 0..<max(expectedLines.count, actualLines.count) {
            let wanted = index < expectedLines.count ? expectedLines[index] : nil
            let got = index < actualLines.count ? actualLines[index] : nil
            switch (wanted, got) {
            case (let wanted?, let got?) where matches(wanted, got):
                continue
            case (let wanted?, let got?):
                differences.append("body line \(index + 1): expected \(quoted(wanted)), got \(quoted(got))")
            case (let wanted?, nil):
                differences.append("body line \(index + 1): expected \(quoted(wanted)), missing")
            case (nil, let got?):
                differences.append("body line \(index + 1): not expected, got \(quoted(got))")
            case (nil, nil):
                continue
            }
        }
    }

    // MARK: - Values

    /// Whether `actual` is what `recorded` says: equal once bound placeholders are filled in, with
    /// unbound placeholders and volatile values matching any value of their shape (and bound to it).
    mutating func matches(_ recorded: String, _ actual: String) -> Bool {
        let filled = bindings.substitute(recorded)
        if filled == actual { return true }
        let holes = Self.holes(in: filled)
        guard !holes.isEmpty else { return false }
        var pattern = "^"
        var cursor = filled.startIndex
        for hole in holes {
            pattern += Self.escaped(String(filled[cursor..<hole.range.lowerBound])) + "(\(hole.pattern))"
            cursor = hole.range.upperBound
        }
        pattern += Self.escaped(String(filled[cursor...])) + "$"
        guard let regex = try? Regex(pattern), let match = actual.wholeMatch(of: regex) else { return false }
        for (index, hole) in holes.enumerated() where hole.isSentBack {
            if let captured = match.output[index + 1].substring {
                bindings.learn(String(filled[hole.range]), String(captured))
            }
        }
        return true
    }

    /// The placeholders and volatile values of a recorded text, in order, not overlapping.
    private static func holes(in text: String) -> [(range: Range<String.Index>, pattern: String, isSentBack: Bool)] {
        var holes = text.matches(of: Bindings.placeholder).map { ($0.range, ".+?", true) }
        for (range, kind) in VolatileValue.find(in: text) where !holes.contains(where: { $0.0.overlaps(range) }) {
            holes.append((range, kind.pattern, kind.isSentBack))
        }
        return holes.sorted { $0.0.lowerBound < $1.0.lowerBound }
    }

    private static func escaped(_ literal: String) -> String {
        var result = ""
        for character in literal {
            if "\\^$.|?*+()[]{}/-".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    private func quoted(_ text: String) -> String {
        let shown = text.count > 300 ? String(text.prefix(300)) + "…" : text
        return "\"" + shown.replacing("\n", with: "\\n") + "\""
    }
}
