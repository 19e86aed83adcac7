import CampaignMockHTTP
package import CampaignMockModel

/// An `application/x-www-form-urlencoded` body as the Campaign SDKs send it: `k=v&k=v`, each key and
/// value percent-encoded over UTF-8 (docs/protocol.md §3.3). Keys are unique.
///
/// Read in one pass over the bytes, each field a registration reads (``Field``) straight into its own
/// slot: a dictionary of names hashed every one, and a list searched by name for every field read and
/// for every field received (the duplicate check), cost a fifth of a registration's parsing. A name or
/// value is decoded only when it holds a `%` or a `+`; the rest become strings as they lie.
package struct FormBody: Equatable {
    /// The fields a registration reads (docs/protocol.md §3.3).
    package enum Field: Int {
        case registrationToken, mobileAppUuid, userKey, deviceImei, deviceName, deviceModel, deviceBrand,
            deviceManufacturer, osName, osVersion, osLanguage, additionalParams

        static let count = additionalParams.rawValue + 1

        var name: StaticString {
            switch self {
            case .registrationToken: return "registrationToken"
            case .mobileAppUuid: return "mobileAppUuid"
            case .userKey: return "userKey"
            case .deviceImei: return "deviceImei"
            case .deviceName: return "deviceName"
            case .deviceModel: return "deviceModel"
            case .deviceBrand: return "deviceBrand"
            case .deviceManufacturer: return "deviceManufacturer"
            case .osName: return "osName"
            case .osVersion: return "osVersion"
            case .osLanguage: return "osLanguage"
            case .additionalParams: return "additionalParams"
            }
        }

        /// The field named by these (decoded) bytes, or nil for another name. Compared on the bytes: the
        /// names are ASCII, and a name spelled with other bytes that Swift's `==` would still find equal
        /// (canonical equivalence) is longer in UTF-8, so it never matched here either.
        init?(named bytes: UnsafeBufferPointer<UInt8>) {
            var raw = 0
            while let field = Field(rawValue: raw) {
                if field.isNamed(bytes) {
                    self = field
                    return
                }
                raw += 1
            }
            return nil
        }

        /// Compared byte by byte from the name's own bytes, lengths first (they differ more often than not).
        private func isNamed(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            let name = self.name
            guard bytes.count == name.utf8CodeUnitCount else { return false }
            let expected = name.utf8Start
            for index in 0..<bytes.count where bytes[index] != expected[index] { return false }
            return true
        }
    }

    /// The values of the fields a registration reads, by ``Field/rawValue``; nil when absent.
    private var known = [String?](repeating: nil, count: Field.count)
    /// The fields under other names, in the order received.
    private var others: [(name: String, value: String)] = []

    /// Decodes `bytes`.
    ///
    /// - Throws: ``RegistrationError/malformed(_:)`` for text that is not UTF-8, a broken `%XX` escape,
    ///   a value that is not UTF-8 once decoded, an empty name, or a repeated name.
    package init(parsing bytes: [UInt8]) throws(RegistrationError) {
        try bytes.withUnsafeBufferPointer { bytes throws(RegistrationError) in
            do throws(RegistrationError) {
                try parse(bytes)
            } catch {
                // A body that is not UTF-8 is reported as such, whatever else is wrong: checked here, after
                // the fact, so that a body that is (as it nearly always is) needs no pass of its own.
                throw Self.isUTF8(bytes) ? error : Self.notUTF8
            }
        }
    }

    private static let notUTF8 = RegistrationError.malformed("the body is not UTF-8")

    /// iOS sends non-ASCII letters raw (docs/protocol.md §3.3), so the raw body must be UTF-8 as well.
    private static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy({ $0 < 0x80 }) || String(validating: bytes, as: UTF8.self) != nil
    }

    /// On the contiguous bytes: a registration reads a dozen fields here, and the same walk over an
    /// array (bounds checks, generic searches) cost twice as much.
    private mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(RegistrationError) {
        if bytes.isEmpty { return }
        // Walked on the bytes of `&`, `=`, `%` and `+` (ASCII, so never inside a multi-byte character), as
        // HTML's form decoding does; each pair is taken where it lies, and the same pass notes whether the
        // name and the value hold anything to decode and whether the body holds any byte that is not ASCII.
        var highBits: UInt8 = 0
        var start = 0
        while start <= bytes.count {
            var end = start
            var equals = -1
            var nameEscaped = false
            var valueEscaped = false
            while end < bytes.count {
                let byte = bytes[end]
                highBits |= byte
                if byte == UInt8(ascii: "&") { break }
                if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+") {
                    if equals < 0 { nameEscaped = true } else { valueEscaped = true }
                } else if byte == UInt8(ascii: "=") && equals < 0 {
                    equals = end
                }
                end += 1
            }
            if end == start { throw .malformed("empty parameter between '&' separators") }
            let nameEnd = equals < 0 ? end : equals
            let rawName = UnsafeBufferPointer(rebasing: bytes[start..<nameEnd])
            let rawValue = UnsafeBufferPointer(rebasing: bytes[min(nameEnd + 1, end)..<end])
            start = end + 1
            if rawName.isEmpty { throw .malformed("parameter without a name before '='") }
            try add(rawName, escaped: nameEscaped, rawValue, escaped: valueEscaped)
        }
        if highBits >= 0x80 && String(validating: bytes, as: UTF8.self) == nil { throw Self.notUTF8 }
    }

    /// Decodes one pair and puts it in its place.
    private mutating func add(
        _ rawName: UnsafeBufferPointer<UInt8>, escaped nameEscaped: Bool, _ rawValue: UnsafeBufferPointer<UInt8>,
        escaped valueEscaped: Bool
    ) throws(RegistrationError) {
        if !nameEscaped, let field = Field(named: rawName) {
            try set(field, rawValue, escaped: valueEscaped)
            return
        }
        // A name with escapes (or another name): decoded, then placed.
        guard let name = nameEscaped ? PercentEncoding.decode(bytes: rawName, plusAsSpace: true) : Self.text(rawName)
        else {
            throw .malformed("malformed parameter name '\(String(decoding: rawName.prefix(40), as: UTF8.self))'")
        }
        var decodedName = name
        if let field = decodedName.withUTF8({ Field(named: $0) }) {
            try set(field, rawValue, escaped: valueEscaped)
            return
        }
        guard let value = Self.value(rawValue, escaped: valueEscaped) else {
            throw .malformed("malformed percent-encoding in parameter '\(name)'")
        }
        // Lengths are compared first: they differ more often than not.
        let length = name.utf8.count
        if others.contains(where: { $0.name.utf8.count == length && $0.name == name }) {
            throw .malformed("parameter '\(name)' appears more than once")
        }
        others.append((name, value))
    }

    private mutating func set(_ field: Field, _ rawValue: UnsafeBufferPointer<UInt8>, escaped: Bool)
        throws(RegistrationError)
    {
        guard let value = Self.value(rawValue, escaped: escaped) else {
            throw .malformed("malformed percent-encoding in parameter '\(field.name)'")
        }
        if known[field.rawValue] != nil { throw .malformed("parameter '\(field.name)' appears more than once") }
        known[field.rawValue] = value
    }

    /// A value, decoded when it has a `%` or a `+`; nil for a broken escape or a decoded value that is
    /// not UTF-8.
    private static func value(_ bytes: UnsafeBufferPointer<UInt8>, escaped: Bool) -> String? {
        escaped ? PercentEncoding.decode(bytes: bytes, plusAsSpace: true) : text(bytes)
    }

    /// Bytes with nothing to decode, as text. Whether the body is UTF-8 is checked once, for all of it
    /// (a field of a body that is not is never read), so nothing is validated here.
    private static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// The value of `field`, or nil when absent.
    package subscript(_ field: Field) -> String? { known[field.rawValue] }

    /// The value of `name`, or nil when absent.
    subscript(_ name: String) -> String? {
        var name = name
        if let field = name.withUTF8({ Field(named: $0) }) { return self[field] }
        let length = name.utf8.count
        return others.first { $0.name.utf8.count == length && $0.name == name }?.value
    }

    /// Every field: the ones a registration reads (in ``Field`` order), then the others as received.
    var fields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        var raw = 0
        while let field = Field(rawValue: raw) {
            if let value = known[raw] { fields.append(("\(field.name)", value)) }
            raw += 1
        }
        return fields + others
    }

    package static func == (lhs: FormBody, rhs: FormBody) -> Bool {
        lhs.known == rhs.known && lhs.others.map(\.name) == rhs.others.map(\.name)
            && lhs.others.map(\.value) == rhs.others.map(\.value)
    }
}
