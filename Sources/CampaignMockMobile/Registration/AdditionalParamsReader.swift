package import CampaignMockModel
import CampaignMockSupport

/// Reads the `additionalParams` XML of a registration (docs/protocol.md §3.4): a root element named
/// `additionalParams` (iOS) or `additionalParameters` (Android) holding `<param name="…" value="…"/>`.
///
/// The document is read by ``XMLReader`` (no DTD, no entity but the predefined ones, nothing expanded);
/// this checks the shape: no other element, no text, no attribute but `name` and `value`, no repeated name.
/// A param with an empty name is ignored (docs/protocol.md §3.4).
package enum AdditionalParamsReader {
    /// Parses `text`; an empty text is no parameters.
    ///
    /// - Throws: ``RegistrationError/malformed(_:)`` naming what is wrong.
    package static func parse(_ text: String) throws(RegistrationError) -> [AdditionalParam] {
        // Looked at as bytes: walking the text's Characters cost as much as reading the XML.
        let bytes = Array(text.utf8)
        if bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) { return [] }
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

    private static func fail(_ reason: String) -> RegistrationError {
        .malformed("additionalParams: \(reason)")
    }
}
