/// Writing XML text: escaping, and elements from attributes and content.
package enum XMLOutput {
    /// Text escaped for a double-quoted attribute value.
    package static func escape(_ text: String) -> String {
        escaped(text, quotes: true)
    }

    /// Text escaped for element content (quotes may stay as they are).
    static func escapeText(_ text: String) -> String {
        escaped(text, quotes: false)
    }

    private static func escaped(_ text: String, quotes: Bool) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where quotes: result += "&quot;"
            case "\r": result += "&#13;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `<name a="1">content</name>`, or `<name a="1"/>` without content. `content` is XML already.
    package static func element(_ name: String, _ attributes: [(String, String)] = [], content: String? = nil) -> String
    {
        var text = "<" + name
        for (key, value) in attributes { text += " \(key)=\"\(escape(value))\"" }
        guard let content else { return text + "/>" }
        return text + ">" + content + "</\(name)>"
    }

    /// An element holding escaped text.
    package static func textElement(_ name: String, _ text: String, attributes: [(String, String)] = []) -> String {
        element(name, attributes, content: escapeText(text))
    }

    /// An element parsed from a request, written back out (for echoing literal XML).
    package static func write(_ element: MarkupElement) -> String {
        let attributes = element.attributes.map { ($0.name, $0.value) }
        if element.children.isEmpty { return self.element(element.name, attributes) }
        let content = element.children.map { node -> String in
            switch node {
            case .element(let child): return write(child)
            case .text(let text): return escapeText(text)
            }
        }.joined()
        return self.element(element.name, attributes, content: content)
    }

    /// An element written one child element per line, two spaces per level, white-space-only text
    /// left out (for people reading a recording).
    package static func indented(_ element: MarkupElement, depth: Int = 0) -> String {
        let indent = String(repeating: "  ", count: depth)
        let attributes = element.attributes.map { ($0.name, $0.value) }
        let children = element.children.filter { node in
            if case .text(let text) = node { return !text.allSatisfy(\.isWhitespace) }
            return true
        }
        if children.isEmpty { return indent + self.element(element.name, attributes) + "\n" }
        if children.count == 1, case .text(let text) = children[0] {
            return indent + textElement(element.name, text, attributes: attributes) + "\n"
        }
        let close = "</\(element.name)>"
        let open = self.element(element.name, attributes, content: "").dropLast(close.count)
        var lines = indent + open + "\n"
        for child in children {
            switch child {
            case .element(let inner): lines += indented(inner, depth: depth + 1)
            case .text(let text): lines += indent + "  " + escapeText(text) + "\n"
            }
        }
        return lines + indent + close + "\n"
    }
}
