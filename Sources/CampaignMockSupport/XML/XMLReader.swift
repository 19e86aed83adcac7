/// A small, strict XML 1.0 reader producing an ``MarkupElement`` tree with namespaces resolved.
///
/// It is strict where XML is dangerous and plain where it is not: a DOCTYPE (and so any entity
/// declaration, internal or external) is refused before anything is read from it, only the five
/// predefined entities and character references are decoded, nothing is ever fetched or expanded,
/// and depth and element count are bounded. Comments are skipped; CDATA is text; processing
/// instructions other than the XML declaration are refused.
package struct XMLReader {
    /// Bounds on a document.
    package struct Limits: Sendable {
        package var depth = 64
        package var elements = 100_000
        package init() {}
    }

    private let bytes: [UInt8]
    private let limits: Limits
    private var index = 0
    private var elementCount = 0

    private static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    /// Parses a whole document and returns its root element.
    ///
    /// - Throws: ``XMLError`` naming the problem and its byte offset.
    package static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(XMLError) -> MarkupElement {
        var reader = XMLReader(bytes: bytes, limits: limits)
        return try reader.document()
    }

    private init(bytes: [UInt8], limits: Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    private mutating func document() throws(XMLError) -> MarkupElement {
        if starts(with: "\u{FEFF}") { index += 3 }  // UTF-8 byte order mark
        if starts(with: "<?xml") && index + 5 < bytes.count && Self.isSpace(bytes[index + 5]) {
            try skip(past: "?>", what: "XML declaration")
        }
        try skipMisc()
        guard index < bytes.count else { throw fail("no root element") }
        guard consume("<") else { throw fail("expected the root element") }
        let root = try element(depth: 1, scope: [])
        try skipMisc()
        guard index == bytes.count else { throw fail("content after the root element") }
        return root
    }

    /// White space, comments; a DOCTYPE or a processing instruction is refused.
    private mutating func skipMisc() throws(XMLError) {
        while true {
            skipSpace()
            if starts(with: "<!--") {
                try skip(past: "-->", what: "comment")
            } else if starts(with: "<!DOCTYPE") || starts(with: "<!ENTITY") {
                throw fail("DTDs and entity declarations are not accepted")
            } else if starts(with: "<?") {
                throw fail("processing instructions are not accepted")
            } else {
                return
            }
        }
    }

    /// An element whose `<` was consumed.
    /// The namespace declarations in force, innermost last (`""` is the default namespace). A short list
    /// searched from the end: a document declares a handful, and a dictionary per element (every prefix
    /// hashed) cost more than reading the element.
    private typealias Scope = [(prefix: String, namespace: String)]

    private mutating func element(depth: Int, scope inherited: Scope) throws(XMLError) -> MarkupElement {
        guard depth <= limits.depth else { throw fail("elements are nested deeper than \(limits.depth)") }
        elementCount += 1
        guard elementCount <= limits.elements else { throw fail("more than \(limits.elements) elements") }
        let name = try self.name()
        var scope = inherited
        var raw: [(String, String)] = []
        while true {
            let spaced = skipSpace()
            guard index < bytes.count else { throw fail("unterminated tag <\(name)>") }
            if bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: ">") { break }
            guard spaced else { throw fail("attributes of <\(name)> must be separated by spaces") }
            let attribute = try self.name()
            skipSpace()
            try expect("=")
            skipSpace()
            let value = try quoted()
            guard !raw.contains(where: { $0.0 == attribute }) else {
                throw fail("attribute '\(attribute)' is repeated")
            }
            if attribute == "xmlns" {
                scope.append(("", value))
            } else if attribute.hasPrefix("xmlns:") {
                scope.append((String(attribute.dropFirst(6)), value))
            }
            // Room for a few at the first: growing one at a time reallocated at the first and the second.
            if raw.isEmpty { raw.reserveCapacity(4) }
            raw.append((attribute, value))
        }
        let (prefix, localName) = Self.split(name)
        let namespace = try resolve(prefix, scope, for: name)
        var attributes: [MarkupElement.Attribute] = []
        if !raw.isEmpty { attributes.reserveCapacity(raw.count) }
        for (attributeName, value) in raw where attributeName != "xmlns" && !attributeName.hasPrefix("xmlns:") {
            let (attributePrefix, attributeLocal) = Self.split(attributeName)
            // Namespaces in XML §6.2: an unprefixed attribute is in no namespace.
            let attributeNamespace =
                attributePrefix.isEmpty ? nil : try resolve(attributePrefix, scope, for: attributeName)
            attributes.append(
                .init(name: attributeName, localName: attributeLocal, namespace: attributeNamespace, value: value))
        }
        var result = MarkupElement(
            name: name, localName: localName, namespace: namespace.isEmpty ? nil : namespace, attributes: attributes)
        if consume("/>") { return result }
        try expect(">")
        var text: [UInt8] = []
        func flushText(_ result: inout MarkupElement) {
            if !text.isEmpty {
                result.children.append(.text(String(decoding: text, as: UTF8.self)))
                text.removeAll()
            }
        }
        while true {
            guard index < bytes.count else { throw fail("unterminated element <\(name)>") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                if starts(with: "</") {
                    index += 2
                    try close(name)
                    skipSpace()
                    try expect(">")
                    flushText(&result)
                    return result
                } else if starts(with: "<!--") {
                    try skip(past: "-->", what: "comment")
                } else if starts(with: "<![CDATA[") {
                    index += 9
                    let start = index
                    try skip(past: "]]>", what: "CDATA section")
                    text.append(contentsOf: bytes[start..<(index - 3)])
                } else if starts(with: "<!") {
                    throw fail("DTDs and entity declarations are not accepted")
                } else if starts(with: "<?") {
                    throw fail("processing instructions are not accepted")
                } else {
                    flushText(&result)
                    index += 1
                    result.children.append(.element(try element(depth: depth + 1, scope: scope)))
                }
            } else if byte == UInt8(ascii: "&") {
                text.append(contentsOf: try reference())
            } else {
                text.append(byte)
                index += 1
            }
        }
    }

    /// The name of a closing tag whose `</` was consumed, which must be `name`: compared on the bytes, and
    /// read as text (and compared as such) only when they differ: reading it cost a string for every
    /// element closed.
    private mutating func close(_ name: String) throws(XMLError) {
        var expected = name
        let matches = expected.withUTF8 { expected in
            index + expected.count <= bytes.count
                && (index + expected.count == bytes.count || !Self.isNameByte(bytes[index + expected.count]))
                && bytes.withUnsafeBufferPointer { bytes in
                    UnsafeBufferPointer(rebasing: bytes[index..<(index + expected.count)]).elementsEqual(expected)
                }
        }
        guard matches else {
            let closing = try self.name()
            guard closing == name else { throw fail("</\(closing)> does not close <\(name)>") }
            return
        }
        index += name.utf8.count
    }

    /// The namespace for a prefix ("" = the default namespace; "" when there is none).
    private func resolve(_ prefix: String, _ scope: Scope, for name: String) throws(XMLError) -> String {
        if let declared = scope.last(where: { $0.prefix == prefix }) { return declared.namespace }
        if prefix.isEmpty { return "" }
        // Namespaces in XML §3: `xml` is bound without a declaration.
        if prefix == "xml" { return Self.xmlNamespace }
        throw fail("prefix '\(prefix)' of '\(name)' is not declared")
    }

    private static func split(_ name: String) -> (prefix: String, local: String) {
        // Searched among the UTF-8 bytes (`:` is ASCII, so its index is valid in the text): searching the
        // Characters checked grapheme boundaries at every step, a third of reading a registration's params.
        guard let colon = name.utf8.firstIndex(of: UInt8(ascii: ":")) else { return ("", name) }
        return (String(name[..<colon]), String(name[name.utf8.index(after: colon)...]))
    }

    // MARK: - Lexing

    private mutating func name() throws(XMLError) -> String {
        let start = index
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        guard index > start, let name = text(start..<index) else { throw fail("expected a name") }
        // A name starts with neither a digit, `-` nor `.` (all ASCII: the first byte tells).
        let first = bytes[start]
        guard !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first), first != UInt8(ascii: "-"),
            first != UInt8(ascii: ".")
        else {
            throw fail("'\(name)' is not a valid name")
        }
        return name
    }

    private mutating func quoted() throws(XMLError) -> String {
        guard index < bytes.count, bytes[index] == 34 || bytes[index] == 39 else {
            throw fail("attribute values must be quoted")
        }
        let quote = bytes[index]
        index += 1
        // Most values hold nothing to replace: taken as they lie.
        var end = index
        while end < bytes.count, bytes[end] != quote, bytes[end] != UInt8(ascii: "<"), bytes[end] != UInt8(ascii: "&"),
            bytes[end] >= 32
        {
            end += 1
        }
        if end < bytes.count, bytes[end] == quote {
            defer { index = end + 1 }
            return String(decoding: bytes[index..<end], as: UTF8.self)
        }
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
    private mutating func reference() throws(XMLError) -> [UInt8] {
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

    private mutating func skip(past terminator: StaticString, what: String) throws(XMLError) {
        while index + terminator.utf8CodeUnitCount <= bytes.count {
            if consume(terminator) { return }
            index += 1
        }
        throw fail("unterminated \(what)")
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = index
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        return index > start
    }

    /// Whether the bytes at `index` are `pattern`'s. Compared byte by byte from the string's own UTF-8
    /// (making an array of it first allocated on every call, several times per element).
    /// Whether the bytes at the reading position are `pattern`'s. The patterns are literals: compared
    /// from their bytes (walking a String's UTF-8 view cost 20 instructions a byte, and the reader
    /// asks at every `<`).
    private func starts(with pattern: StaticString) -> Bool {
        let count = pattern.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let start = pattern.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] { return false }
        return true
    }

    private mutating func consume(_ text: StaticString) -> Bool {
        guard starts(with: text) else { return false }
        index += text.utf8CodeUnitCount
        return true
    }

    private mutating func expect(_ text: StaticString) throws(XMLError) {
        guard consume(text) else { throw fail("expected '\(text)'") }
    }

    /// The bytes in `range` as text when they are UTF-8 (ASCII, what names mostly are, without the
    /// general validation), else nil.
    private func text(_ range: Range<Int>) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            let slice = UnsafeBufferPointer(rebasing: buffer[range])
            return slice.allSatisfy({ $0 < 0x80 })
                ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
        }
    }

    private func fail(_ reason: String) -> XMLError {
        XMLError(reason: reason, offset: index)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 32 || byte == 9 || byte == 10 || byte == 13
    }

    /// ASCII name characters, and any byte of a multi-byte UTF-8 sequence (XML allows most letters).
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: ":"), 0x80...0xFF:
            return true
        default:
            return false
        }
    }
}

/// Why a document could not be read.
package struct XMLError: Error, Equatable, CustomStringConvertible {
    package let reason: String
    /// Byte offset in the document.
    package let offset: Int
    package var description: String { "\(reason) (at byte \(offset))" }
}
