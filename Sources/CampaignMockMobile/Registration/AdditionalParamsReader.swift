package import CampaignMockModel
import CampaignMockSupport

/// Reads the `additionalParams` XML of a registration (docs/protocol.md §3.4): a root element named
/// `additionalParams` (iOS) or `additionalParameters` (Android) holding `<param name="…" value="…"/>`.
///
/// The document is read by ``XMLReader`` (no DTD, no entity but the predefined ones, nothing expanded);
/// this checks the shape: no other element, no text, no attribute but `name` and `value`, no repeated name.
/// A param with an empty name is ignored (docs/protocol.md §3.4).
///
/// The shape both SDKs send is read straight from the bytes first (``canonicalParams(_:)``): building the
/// tree cost 15k instructions a registration. Anything else goes to ``XMLReader``, which also gives every
/// refusal its reason.
package enum AdditionalParamsReader {
    /// Parses `text`; an empty text is no parameters.
    ///
    /// - Throws: ``RegistrationError/malformed(_:)`` naming what is wrong.
    package static func parse(_ text: String) throws(RegistrationError) -> [AdditionalParam] {
        // Looked at as bytes: walking the text's Characters cost as much as reading the XML.
        let bytes = Array(text.utf8)
        if bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) { return [] }
        if let params = canonicalParams(bytes) { return params }
        return try parseTree(bytes)
    }

    /// Reads the document as an XML tree and checks its shape: what ``parse(_:)`` does with any document
    /// ``canonicalParams(_:)`` leaves alone.
    static func parseTree(_ bytes: [UInt8]) throws(RegistrationError) -> [AdditionalParam] {
        let root: MarkupElement
        do {
            root = try XMLReader.parse(bytes)
        } catch {
            throw .malformed("additionalParams: \(error)")
        }
        guard root.name == "additionalParams" || root.name == "additionalParameters" else {
            throw fail("root element must be additionalParams or additionalParameters, not '\(root.name)'")
        }
        guard root.attributes.isEmpty else { throw fail("the root element takes no attributes") }
        guard !root.hasText else { throw fail("text content is not accepted inside \(root.name)") }
        var params: [AdditionalParam] = []
        for (index, element) in root.elements.enumerated() {
            guard element.name == "param" else {
                throw fail("unexpected element '\(element.name)'; only param is accepted")
            }
            guard element.children.isEmpty || (!element.hasText && element.elements.isEmpty) else {
                throw fail("param must be empty")
            }
            // Both SDKs send a param with an empty name when the app passes an empty key: a server that maps
            // names to fields has nowhere to put it, so it is ignored rather than failing the registration.
            guard let param = try self.param(element, number: index + 1) else { continue }
            if params.contains(where: { $0.name == param.name }) {
                throw fail("param '\(param.name)' appears more than once")
            }
            params.append(param)
        }
        return params
    }

    /// The param, or nil for one whose name is empty.
    private static func param(_ element: MarkupElement, number: Int) throws(RegistrationError) -> AdditionalParam? {
        if let unknown = element.attributes.first(where: { $0.name != "name" && $0.name != "value" }) {
            throw fail("param #\(number) has an unknown attribute '\(unknown.name)'")
        }
        guard let name = element.attribute("name") else { throw fail("param #\(number) has no name attribute") }
        guard let value = element.attribute("value") else {
            throw fail("param '\(name)' has no value attribute")
        }
        return name.isEmpty ? nil : AdditionalParam(name: name, value: value)
    }

    /// The params of a document in the shape the SDKs send, read from its bytes; nil for any other document.
    ///
    /// The shape: optional white space, `<additionalParams>` or `<additionalParameters>` with no attribute,
    /// then `<param name="…" value="…"/>` elements (either quote, either order) with spaces, tabs or line
    /// feeds between them, the closing tag, optional white space. A value holds no `&`, `<`, tab, line break
    /// or other control character (those need decoding). Anything else, a repeated name included, is nil:
    /// ``XMLReader`` reads it, and refuses it with its reason, or accepts it, as it always did.
    static func canonicalParams(_ bytes: [UInt8]) -> [AdditionalParam]? {
        var reader = CanonicalReader(bytes: bytes)
        return reader.document()
    }

    private static func fail(_ reason: String) -> RegistrationError {
        .malformed("additionalParams: \(reason)")
    }
}

/// The reader behind ``AdditionalParamsReader/canonicalParams(_:)``: each step answers whether the
/// document still has the canonical shape.
private struct CanonicalReader {
    /// More params than this are left to ``XMLReader`` and its bound on elements.
    private static let maximumParams = 1000

    private let bytes: [UInt8]
    private var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func document() -> [AdditionalParam]? {
        skipSpace()
        let root: StaticString
        if consume("<additionalParams") {
            root = "additionalParams"
        } else if consume("<additionalParameters") {
            root = "additionalParameters"
        } else {
            return nil
        }
        skipSpace()
        if consume("/>") { return atEnd() ? [] : nil }
        guard consume(">") else { return nil }
        var params: [AdditionalParam] = []
        var count = 0
        while true {
            // No CR between elements: the tree's reading joins the root's text, and a CR LF in it is one
            // Character, which is not white space there.
            skipSpace(carriageReturns: false)
            guard consume("<param") else { break }
            count += 1
            guard count <= Self.maximumParams, let (name, value) = attributes() else { return nil }
            // An empty name is ignored, as by the tree's reading; a repeated one is refused there.
            if name.isEmpty { continue }
            guard !params.contains(where: { $0.name == name }) else { return nil }
            params.append(AdditionalParam(name: name, value: value))
        }
        guard consume("</"), consume(root) else { return nil }
        skipSpace()
        guard consume(">"), atEnd() else { return nil }
        return params
    }

    /// The `name` and `value` of a param whose `<param` was read, each once, then `/>`.
    private mutating func attributes() -> (name: String, value: String)? {
        var name: String?
        var value: String?
        while skipSpace() {
            if consume("name") {
                guard name == nil, let text = attributeValue() else { return nil }
                name = text
            } else if consume("value") {
                guard value == nil, let text = attributeValue() else { return nil }
                value = text
            } else {
                break
            }
        }
        guard let name, let value, consume("/>") else { return nil }
        return (name, value)
    }

    /// `="…"` or `='…'` after an attribute's name, holding nothing to decode.
    private mutating func attributeValue() -> String? {
        skipSpace()
        guard consume("=") else { return nil }
        skipSpace()
        guard index < bytes.count, bytes[index] == 34 || bytes[index] == 39 else { return nil }
        let quote = bytes[index]
        let start = index + 1
        var end = start
        while end < bytes.count, bytes[end] != quote {
            let byte = bytes[end]
            guard byte >= 32, byte != UInt8(ascii: "<"), byte != UInt8(ascii: "&") else { return nil }
            end += 1
        }
        guard end < bytes.count else { return nil }
        index = end + 1
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private func atEnd() -> Bool {
        var rest = index
        while rest < bytes.count, Self.isSpace(bytes[rest]) { rest += 1 }
        return rest == bytes.count
    }

    @discardableResult
    private mutating func skipSpace(carriageReturns: Bool = true) -> Bool {
        let start = index
        while index < bytes.count, Self.isSpace(bytes[index]), carriageReturns || bytes[index] != 13 { index += 1 }
        return index > start
    }

    /// Inlined: with the pattern a literal, its bytes are compared unrolled.
    @inline(__always)
    private mutating func consume(_ pattern: StaticString) -> Bool {
        let count = pattern.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let start = pattern.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] { return false }
        index += count
        return true
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 32 || byte == 9 || byte == 10 || byte == 13
    }
}
