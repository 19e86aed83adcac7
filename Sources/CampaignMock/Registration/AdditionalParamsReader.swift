/// Reads the `additionalParams` XML of a registration (PROTOCOL.md §3.4): a root element named
/// `additionalParams` (iOS) or `additionalParameters` (Android) holding `<param name="…" value="…"/>`.
///
/// A deliberately small reader for a small grammar: it never expands anything but the five predefined
/// entities and character references, and refuses DTDs, other declarations, processing instructions
/// (but the XML declaration), CDATA, text content and unknown elements. Nothing here can make it allocate
/// more than a few times its input.
struct AdditionalParamsReader {
    private let bytes: [UInt8]
    private var index = 0

    /// Parses `text`; an empty text is no parameters.
    ///
    /// - Throws: ``RegistrationError/malformed(_:)`` naming what is wrong.
    static func parse(_ text: String) throws(RegistrationError) -> [AdditionalParam] {
        var reader = AdditionalParamsReader(bytes: Array(text.utf8))
        return try reader.document()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func document() throws(RegistrationError) -> [AdditionalParam] {
        skipSpace()
        if index == bytes.count { return [] }
        if starts(with: "<?xml") { try skipDeclaration() }
        skipSpace()
        if starts(with: "<!") { throw fail("DTDs, comments and declarations are not accepted") }
        guard starts(with: "<") else { throw fail("expected the root element") }
        index += 1
        let root = try name()
        guard root == "additionalParams" || root == "additionalParameters" else {
            throw fail("root element must be additionalParams or additionalParameters, not '\(root)'")
        }
        let rootAttributes = try attributes()
        guard rootAttributes.isEmpty else { throw fail("the root element takes no attributes") }
        var params: [AdditionalParam] = []
        if consume("/>") {
            return try finish(params)
        }
        try expect(">")
        while true {
            skipSpace()
            if index == bytes.count { throw fail("unterminated element, expected '</\(root)>'") }
            if consume("</") {
                guard try name() == root else { throw fail("closing tag does not match '\(root)'") }
                skipSpace()
                try expect(">")
                return try finish(params)
            }
            if starts(with: "<!") || starts(with: "<?") {
                throw fail("comments, CDATA and processing instructions are not accepted inside \(root)")
            }
            guard consume("<") else { throw fail("text content is not accepted inside \(root)") }
            let element = try name()
            guard element == "param" else { throw fail("unexpected element '\(element)'; only param is accepted") }
            let values = try attributes()
            if !consume("/>") {
                try expect(">")
                skipSpace()
                guard consume("</"), try name() == "param" else { throw fail("param must be empty") }
                skipSpace()
                try expect(">")
            }
            params.append(try param(values, number: params.count + 1))
            if params.dropLast().contains(where: { $0.name == params.last?.name }) {
                throw fail("param '\(params.last!.name)' appears more than once")
            }
        }
    }

    private func param(_ attributes: [(String, String)], number: Int) throws(RegistrationError) -> AdditionalParam {
        var name: String?
        var value: String?
        for (key, text) in attributes {
            switch key {
            case "name": name = text
            case "value": value = text
            default: throw fail("param #\(number) has an unknown attribute '\(key)'")
            }
        }
        guard let name, !name.isEmpty else { throw fail("param #\(number) has no name") }
        guard let value else { throw fail("param '\(name)' has no value attribute") }
        return AdditionalParam(name: name, value: value)
    }

    private mutating func finish(_ params: [AdditionalParam]) throws(RegistrationError) -> [AdditionalParam] {
        skipSpace()
        guard index == bytes.count else { throw fail("content after the root element") }
        return params
    }

    // MARK: - Lexing

    private mutating func skipDeclaration() throws(RegistrationError) {
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "?") && bytes[index + 1] == UInt8(ascii: ">") {
                index += 2
                return
            }
            index += 1
        }
        throw fail("unterminated XML declaration")
    }

    /// An XML name (ASCII letters, digits, `_ - . :`; names here are ASCII).
    private mutating func name() throws(RegistrationError) -> String {
        let start = index
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        guard index > start else { throw fail("expected a name") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func attributes() throws(RegistrationError) -> [(String, String)] {
        var result: [(String, String)] = []
        while true {
            let hadSpace = skipSpace()
            guard index < bytes.count else { throw fail("unterminated tag") }
            if bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: ">") { return result }
            guard hadSpace else { throw fail("attributes must be separated by spaces") }
            let key = try name()
            skipSpace()
            try expect("=")
            skipSpace()
            let value = try quoted()
            if result.contains(where: { $0.0 == key }) { throw fail("attribute '\(key)' is repeated") }
            result.append((key, value))
        }
    }

    private mutating func quoted() throws(RegistrationError) -> String {
        guard index < bytes.count, bytes[index] == 34 || bytes[index] == 39 else {
            throw fail("attribute values must be quoted")
        }
        let quote = bytes[index]
        index += 1
        var value: [UInt8] = []
        while index < bytes.count, bytes[index] != quote {
            switch bytes[index] {
            case UInt8(ascii: "<"):
                throw fail("'<' inside an attribute value")
            case UInt8(ascii: "&"):
                value.append(contentsOf: try reference())
            case 9, 10, 13:
                // XML 1.0 §3.3.3: literal tabs and line breaks in attribute values read as spaces.
                value.append(32)
                index += 1
            default:
                value.append(bytes[index])
                index += 1
            }
        }
        guard index < bytes.count else { throw fail("unterminated attribute value") }
        index += 1
        return String(decoding: value, as: UTF8.self)
    }

    /// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&#N;` `&#xH;` — and nothing else (XML 1.0 §4.1, §4.6).
    private mutating func reference() throws(RegistrationError) -> [UInt8] {
        guard let end = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
            throw fail("'&' that does not start a reference")
        }
        let body = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
        index = end + 1
        switch body {
        case "amp": return Array("&".utf8)
        case "lt": return Array("<".utf8)
        case "gt": return Array(">".utf8)
        case "quot": return Array("\"".utf8)
        case "apos": return Array("'".utf8)
        default:
            let number: UInt32?
            if body.hasPrefix("#x") {
                number = UInt32(body.dropFirst(2), radix: 16)
            } else if body.hasPrefix("#") {
                number = UInt32(body.dropFirst(), radix: 10)
            } else {
                throw fail("entity '&\(body);' is not one of the five predefined ones")
            }
            guard let number, let scalar = Unicode.Scalar(number), number != 0 else {
                throw fail("invalid character reference '&\(body);'")
            }
            return Array(String(Character(scalar)).utf8)
        }
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = index
        while index < bytes.count, [32, 9, 10, 13].contains(bytes[index]) { index += 1 }
        return index > start
    }

    private func starts(with text: String) -> Bool {
        let pattern = Array(text.utf8)
        return bytes.count - index >= pattern.count && bytes[index..<(index + pattern.count)].elementsEqual(pattern)
    }

    private mutating func consume(_ text: String) -> Bool {
        guard starts(with: text) else { return false }
        index += text.utf8.count
        return true
    }

    private mutating func expect(_ text: String) throws(RegistrationError) {
        guard consume(text) else { throw fail("expected '\(text)'") }
    }

    private func fail(_ reason: String) -> RegistrationError {
        .malformed("additionalParams: \(reason) (at byte \(index))")
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: ":"):
            return true
        default:
            return false
        }
    }
}
