/// What a registration changed of its device: the `changes` of its history entry, of a wait's item and of
/// the stream's event, by ``names``. Empty: the same registration again (`unchanged`).
package struct RegistrationChanges: OptionSet, Sendable, Hashable {
    package let rawValue: UInt8

    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The device was not known: its first registration.
    package static let new = RegistrationChanges(rawValue: 1 << 0)
    package static let userKey = RegistrationChanges(rawValue: 1 << 1)
    /// The device fields (model, OS, language, …).
    package static let device = RegistrationChanges(rawValue: 1 << 2)
    package static let params = RegistrationChanges(rawValue: 1 << 3)

    /// Each change by its name, in the order the names are listed.
    private static let named: [(RegistrationChanges, String)] = [
        (.new, "new"), (.userKey, "userKey"), (.device, "device"), (.params, "params"),
    ]

    /// As the JSON and the history say them: `new`, `userKey`, `device`, `params` in this order, or
    /// `unchanged`.
    package var names: [String] {
        isEmpty ? ["unchanged"] : Self.named.filter { contains($0.0) }.map(\.1)
    }

    /// ``names`` joined by commas, as the history's `changes` column holds them: written without the two
    /// arrays of ``names``, on every registration's path.
    package var column: String {
        if isEmpty { return "unchanged" }
        var text = ""
        for (change, name) in Self.named where contains(change) {
            if !text.isEmpty { text += "," }
            text += name
        }
        return text
    }

    /// The set ``names`` gave (the history's own column, read back).
    package init(names: some Sequence<some StringProtocol>) {
        self = []
        for name in names {
            if let (change, _) = Self.named.first(where: { $0.1 == name }) { insert(change) }
        }
    }
}
