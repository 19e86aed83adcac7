import CampaignMockModel
import CampaignMockSupport
import CampaignMockSystem

/// The payload check (docs/push.md, "Payload check"): an APNs payload or an FCM HTTP v1 message against the
/// platform's rules and what the Campaign SDKs read. Pure: the same payload always gives the same findings.
package enum PayloadChecker {
    /// APNs and FCM both refuse more than 4 KB.
    static let sizeLimit = 4096

    /// The payload's size as APNs and FCM count it: UTF-8 bytes of its compact JSON.
    static func size(_ value: JSONValue) -> Int {
        JSONText.compact(value).utf8.count
    }

    /// The error when `value` (`what`, as the message names it) is over ``sizeLimit``: by how much, and what
    /// `provider` then does (`consequence`).
    static func checkSize(
        _ value: JSONValue, _ rule: PayloadCheck.Rule, at path: String, _ what: String, _ provider: String,
        _ consequence: String, into findings: inout FindingList
    ) {
        let size = size(value)
        guard size > sizeLimit else { return }
        findings.error(
            rule, at: path,
            "\(what) is \(size) bytes (compact JSON), \(size - sizeLimit) over the \(sizeLimit) \(provider) accepts: "
                + consequence)
    }
}

/// The findings of one check, in the order found.
struct FindingList {
    private(set) var items: [PayloadCheck.Finding] = []

    mutating func error(_ rule: PayloadCheck.Rule, at path: String, _ message: String) {
        items.append(.init(.error, rule, path: path, message))
    }

    mutating func warning(_ rule: PayloadCheck.Rule, at path: String, _ message: String) {
        items.append(.init(.warning, rule, path: path, message))
    }

    mutating func info(_ rule: PayloadCheck.Rule, at path: String, _ message: String) {
        items.append(.init(.info, rule, path: path, message))
    }

    var check: PayloadCheck { PayloadCheck(findings: items) }
}

/// `aps.badge` from `aps` and `badge`; the key alone at the top level.
func payloadPath(_ parent: String, _ key: String) -> String {
    parent.isEmpty ? key : parent + "." + key
}

extension JSONValue {
    /// What kind of value this is, for a finding's message (`a number`).
    var kind: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value for a finding's message: a number or boolean as written, a string quoted, else its kind.
    var shown: String {
        switch self {
        case .string(let text): return "the string \"\(text)\""
        case .number, .bool: return text ?? kind
        default: return kind
        }
    }

    /// A number without a fraction.
    var integer: Int64? {
        guard case .number(let value) = self, value == value.rounded(), abs(value) < 1e15 else { return nil }
        return Int64(value)
    }

    /// A number from 0 to 1.
    var isFraction: Bool {
        if case .number(let value) = self { return (0...1).contains(value) }
        return false
    }

    /// The number 1, the only value APNs reads as a set flag.
    var isFlagSet: Bool { self == .number(1) }
}
