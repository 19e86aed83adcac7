/// An element of a parsed XML document, with its namespace resolved.
package struct MarkupElement: Sendable, Equatable {
    /// One attribute; `xmlns` declarations are not listed.
    package struct Attribute: Sendable, Equatable {
        /// As written, e.g. `xsi:type`.
        package var name: String
        package var localName: String
        package var namespace: String?
        package var value: String
    }

    /// A child: an element or text (character data, references decoded, CDATA included).
    package enum Node: Sendable, Equatable {
        case element(MarkupElement)
        case text(String)
    }

    /// As written, e.g. `soapenv:Body`.
    package var name: String
    package var localName: String
    /// The namespace URI the prefix (or the default namespace) stands for, if any.
    package var namespace: String?
    package var attributes: [Attribute]
    package var children: [Node]

    package init(
        name: String, localName: String? = nil, namespace: String? = nil, attributes: [Attribute] = [],
        children: [Node] = []
    ) {
        self.name = name
        self.localName = localName ?? String(name.split(separator: ":").last ?? Substring(name))
        self.namespace = namespace
        self.attributes = attributes
        self.children = children
    }

    /// The child elements, in order.
    package var elements: [MarkupElement] {
        children.compactMap { if case .element(let element) = $0 { return element } else { return nil } }
    }

    /// All text directly inside, concatenated.
    package var text: String {
        children.map { if case .text(let text) = $0 { return text } else { return "" } }.joined()
    }

    /// Whether the element holds text other than white space.
    package var hasText: Bool {
        // An element holding only elements, the usual case, has nothing to join.
        guard children.contains(where: { if case .text = $0 { return true } else { return false } }) else {
            return false
        }
        // XML's white space, byte by byte: a CR LF is one Character in Swift, neither a CR nor an LF.
        return !text.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }

    /// The value of the attribute with this local name (any namespace), or nil.
    package func attribute(_ localName: String) -> String? {
        attributes.first { $0.localName == localName }?.value
    }

    /// The first child element with this local name, or nil.
    package func element(_ localName: String) -> MarkupElement? {
        elements.first { $0.localName == localName }
    }
}
