import CampaignMockHTTP
import CampaignMockSupport
import Synchronization

/// Replaces the secrets of a recording with placeholders: `redacted-<kind>-<n>`, numbered by first
/// appearance, the same secret always getting the same placeholder within one recording, so a flow
/// (register, then query that token) still reads as one.
///
/// Secrets are found where the protocol puts them: the registration form's `mobileAppUuid`,
/// `registrationToken` and `userKey`; SOAP session and security tokens (`sessiontoken`,
/// `pstrSessionToken`, `pstrSecurityToken`, `X-Security-Token`), `strPassword`, the
/// `registrationToken`, `userKey` and `mobileApp/@uuid` attributes of any XML body; `Cookie`,
/// `Set-Cookie` and `Authorization` values. Every known secret is then replaced wherever it stands as a
/// whole value (raw, percent-encoded or XML-escaped) in the target, the headers and both bodies.
package final class Redactor: Sendable {
    private struct State {
        var placeholders: [String: String] = [:]
        var counts: [String: Int] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// Placeholder → secret for the kinds in `kinds`.
    func secrets(ofKinds kinds: Set<String>) -> [String: String] {
        state.withLock { state in
            var result: [String: String] = [:]
            for (secret, placeholder) in state.placeholders {
                let kind = placeholder.dropFirst("redacted-".count).prefix { $0 != "-" }
                if kinds.contains(String(kind)) { result[placeholder] = secret }
            }
            return result
        }
    }

    /// The exchange with every secret replaced.
    package func redact(_ exchange: Exchange) -> Exchange {
        let found = Self.secrets(in: exchange)
        let known: [(secret: String, placeholder: String)] = state.withLock { state in
            for (kind, value) in found where state.placeholders[value] == nil {
                let number = (state.counts[kind] ?? 0) + 1
                state.counts[kind] = number
                state.placeholders[value] = "redacted-\(kind)-\(number)"
            }
            return state.placeholders.map { ($0.key, $0.value) }
        }
        // Longest first, so a secret that contains another is replaced whole.
        let replacements = known.sorted { $0.secret.count > $1.secret.count }.flatMap { secret, placeholder in
            Self.spellings(of: secret).map { ($0, placeholder) }
        }
        func clean(_ text: String) -> String {
            replacements.reduce(text) { text, pair in WholeValue.replace(pair.0, with: pair.1, in: text) }
        }
        var result = exchange
        result.redacted = true
        for keyPath in [\Exchange.request, \Exchange.response] {
            var message = result[keyPath: keyPath]
            message.target = message.target.map(clean)
            message.headers = message.headers.map(clean)
            if let body = message.body { message.setBody(Array(clean(body).utf8)) }
            result[keyPath: keyPath] = message
        }
        return result
    }

    /// (kind, value) of every secret the exchange shows.
    static func secrets(in exchange: Exchange) -> [(String, String)] {
        var found: [(String, String)] = []
        func add(_ kind: String, _ value: String?) {
            if let value, !value.isEmpty { found.append((kind, value)) }
        }
        let formKinds = [
            "mobileAppUuid": "integrationKey", "registrationToken": "registrationToken", "userKey": "userKey",
        ]
        if exchange.request.form != nil {
            for field in PercentEncoding.queryItems(exchange.request.body) ?? [] {
                if let kind = formKinds[field.name] { add(kind, field.value) }
            }
        }
        for message in [exchange.request, exchange.response] {
            for (name, value) in message.headerPairs {
                switch name.lowercased() {
                case "authorization":
                    let parts = value.split(separator: " ", maxSplits: 1)
                    add("authorization", parts.count == 2 ? String(parts[1]) : value)
                case "x-security-token":
                    add("securityToken", value)
                case "cookie", "set-cookie":
                    let cookies =
                        name.lowercased() == "cookie"
                        ? value.split(separator: ";") : [Substring(value.prefix { $0 != ";" })]
                    for cookie in cookies {
                        let parts = cookie.split(separator: "=", maxSplits: 1)
                        guard parts.count == 2 else { continue }
                        let name = parts[0].trimmingASCIISpaces()
                        add(name == "__sessiontoken" ? "sessionToken" : "cookie", String(parts[1]))
                    }
                default:
                    break
                }
            }
            if message.xml != nil, let root = try? XMLReader.parse(message.bodyBytes) {
                secrets(in: root, add)
            }
        }
        return found
    }

    private static func secrets(in element: MarkupElement, _ add: (String, String?) -> Void) {
        switch element.localName {
        case "sessiontoken", "pstrSessionToken": add("sessionToken", element.text.trimmingASCIISpaces())
        case "pstrSecurityToken": add("securityToken", element.text.trimmingASCIISpaces())
        case "strPassword": add("password", element.text)
        default: break
        }
        add("registrationToken", element.attribute("registrationToken"))
        add("userKey", element.attribute("userKey"))
        if element.localName == "mobileApp" { add("integrationKey", element.attribute("uuid")) }
        for child in element.elements { secrets(in: child, add) }
    }

    /// How a value may be written: as is, percent-encoded (either hex case, `+` for spaces), XML-escaped.
    static func spellings(of value: String) -> [String] {
        var result = [value]
        let encoded = PercentEncoding.encodeComponent(value)
        for spelling in [encoded, encoded.lowercased(), encoded.replacing("%20", with: "+"), XMLOutput.escape(value)]
        where !result.contains(spelling) {
            result.append(spelling)
        }
        return result
    }
}

/// Replacing a value where it stands whole: not when it is part of a longer word (`admin` in
/// `administrator`), but next to punctuation, quotes, tags, `=`, `&` or a `%XX` escape.
enum WholeValue {
    static func replace(_ value: String, with replacement: String, in text: String) -> String {
        guard !value.isEmpty, text.contains(value) else { return text }
        let bytes = Array(text.utf8)
        let pattern = Array(value.utf8)
        var result: [UInt8] = []
        var index = 0
        var copiedUpTo = 0
        while index + pattern.count <= bytes.count {
            if bytes[index] == pattern[0] && bytes[index..<(index + pattern.count)].elementsEqual(pattern)
                && isBoundary(bytes, before: index) && isBoundary(bytes, after: index + pattern.count)
            {
                result += bytes[copiedUpTo..<index]
                result += Array(replacement.utf8)
                index += pattern.count
                copiedUpTo = index
            } else {
                index += 1
            }
        }
        result += bytes[copiedUpTo...]
        return String(decoding: result, as: UTF8.self)
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x5F || byte == 0x2D || byte == 0x2E || byte == 0x40 || byte >= 0x80
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    private static func isBoundary(_ bytes: [UInt8], before index: Int) -> Bool {
        guard index > 0 else { return true }
        if index >= 3 && bytes[index - 3] == 0x25 && isHex(bytes[index - 2]) && isHex(bytes[index - 1]) { return true }
        return !isWordByte(bytes[index - 1])
    }

    private static func isBoundary(_ bytes: [UInt8], after index: Int) -> Bool {
        guard index < bytes.count else { return true }
        if bytes[index] == 0x25 { return true }
        return !isWordByte(bytes[index])
    }
}
