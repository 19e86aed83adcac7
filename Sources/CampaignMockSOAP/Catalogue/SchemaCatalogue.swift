import CampaignMockHTTP
import CampaignMockStorage
import CampaignMockSupport

/// Every schema the mock knows, read from the Campaign schema documents in `SOAP/Schemas/` (embedded in
/// the binary at build time). It is the one source for what `xtk:persist#GetEntityIfMoreRecent`
/// answers, for the WSDL, for which methods the router dispatches with their parameters and output
/// types, and for the attributes `ExecuteQuery` accepts.
///
/// Parameters are named as they travel (`strLogin`, `pstrSessionToken`): clients that generate calls
/// from the WSDL use the names, Adobe's acc-js-sdk reads the types and positions.
package struct SchemaCatalogue: Sendable {
    package struct Parameter: Sendable, Equatable {
        package let name: String
        /// The Campaign type: `string`, `boolean`, `byte`, `short`, `long`, `int64`, `datetime`,
        /// `DOMElement`, `DOMDocument`.
        package let type: String

        /// The `xsi:type` of this parameter in a SOAP answer (`long` is 32-bit `xsd:int`, `int64` is `xsd:long`).
        package var xsiType: String {
            switch type {
            case "string", "memo": return "xsd:string"
            case "boolean": return "xsd:boolean"
            case "byte": return "xsd:byte"
            case "short": return "xsd:short"
            case "long": return "xsd:int"
            case "int64": return "xsd:long"
            case "double": return "xsd:double"
            case "float": return "xsd:float"
            case "datetime": return "xsd:dateTime"
            case "date": return "xsd:date"
            default: return "ns:Element"
            }
        }

        /// Whether the value is an XML document rather than text.
        package var isDocument: Bool { xsiType == "ns:Element" }
    }

    package struct Method: Sendable {
        package let name: String
        /// Static methods are called on the schema; others on an object sent as the first parameter.
        package let isStatic: Bool
        /// `access="anonymous"`: callable without a session.
        package let isAnonymous: Bool
        package let inputs: [Parameter]
        package let outputs: [Parameter]
    }

    package struct Schema: Sendable {
        /// `nms:recipient`.
        package let id: String
        /// The document as served.
        package let document: String
        /// `xtk:persist` for `xtk:session`.
        package let implements: [String]
        package let methods: [String: Method]
        /// Methods of the interfaces it implements (`<interface name="persist">`).
        package let interfaceMethods: [String: Method]
        /// The root element's attribute names (`email`, `mobileApp-id`).
        package let attributes: Set<String>
        /// The root element's link names (`mobileApp`) and sub-element names (`storage`).
        package let links: Set<String>
        /// Enumerations by name: the values with their names and labels.
        package let enumerations: [String: [EnumerationValue]]
        /// The enumeration of an enumerated field, by the field as a query writes it (`@dataType`,
        /// `[storage/@exclusionType]`).
        package let enumeratedFields: [String: String]
        /// The Campaign type of each field, by the field as a query writes it.
        package let fieldTypes: [String: String]
        /// Fields a query may name beyond the declared ones: the additional params that extend
        /// `nms:appSubscriptionRcp` (`@<param name>`).
        package var isExtendedByParams: Bool { id == "nms:appSubscriptionRcp" }
    }

    package struct EnumerationValue: Sendable, Equatable {
        package let name: String
        package let label: String
        package let value: String
    }

    package let schemas: [String: Schema]

    /// The catalogue built into the binary.
    package static let builtIn: SchemaCatalogue = {
        do {
            return try SchemaCatalogue(documents: BuiltInSchemas.documents)
        } catch {
            fatalError("a schema document in SOAP/Schemas is broken: \(error)")
        }
    }()

    /// Reads schema documents.
    ///
    /// - Throws: ``XMLError`` or ``SchemaCatalogueError`` for a document that is not a schema.
    package init(documents: [[UInt8]]) throws {
        var schemas: [String: Schema] = [:]
        for bytes in documents {
            let root = try XMLReader.parse(bytes)
            guard root.localName == "schema", let namespace = root.attribute("namespace"),
                let name = root.attribute("name")
            else { throw SchemaCatalogueError("a document is not a <schema namespace name>") }
            let id = "\(namespace):\(name)"
            let element = root.elements.first { $0.localName == "element" && $0.attribute("name") == name }
            let children = element?.elements ?? []
            schemas[id] = Schema(
                id: id, document: String(decoding: bytes, as: UTF8.self).trimmingASCIISpaces(),
                implements: (root.attribute("implements") ?? "").split(separator: ",").map {
                    String($0).trimmingASCIISpaces()
                },
                methods: Self.methods(root.element("methods")),
                interfaceMethods: root.elements.filter { $0.localName == "interface" }.reduce(into: [:]) {
                    $0.merge(Self.methods($1), uniquingKeysWith: { first, _ in first })
                },
                attributes: Set(children.filter { $0.localName == "attribute" }.compactMap { $0.attribute("name") }),
                links: Set(children.filter { $0.localName == "element" }.compactMap { $0.attribute("name") }),
                enumerations: Self.enumerations(root),
                enumeratedFields: Self.fields(children, "enum"), fieldTypes: Self.fields(children, "type"))
        }
        self.schemas = schemas
    }

    private static func enumerations(_ root: MarkupElement) -> [String: [EnumerationValue]] {
        var result: [String: [EnumerationValue]] = [:]
        for enumeration in root.elements where enumeration.localName == "enumeration" {
            guard let name = enumeration.attribute("name") else { continue }
            result[name] = enumeration.elements.filter { $0.localName == "value" }.map { value in
                EnumerationValue(
                    name: value.attribute("name") ?? "", label: value.attribute("label") ?? "",
                    value: value.attribute("value") ?? value.attribute("name") ?? "")
            }
        }
        return result
    }

    /// An XML attribute of every field that has it, by the field as a query writes it: `@dataType`, and
    /// `[storage/@exclusionType]` for an attribute of a sub-element.
    private static func fields(_ children: [MarkupElement], _ property: String) -> [String: String] {
        var result: [String: String] = [:]
        for child in children {
            if child.localName == "attribute", let name = child.attribute("name"), let value = child.attribute(property)
            {
                result["@\(name)"] = value
            }
            if child.localName == "element", child.attribute("type") == nil, let element = child.attribute("name") {
                for attribute in child.elements where attribute.localName == "attribute" {
                    if let name = attribute.attribute("name"), let value = attribute.attribute(property) {
                        result["[\(element)/@\(name)]"] = value
                    }
                }
            }
        }
        return result
    }

    private static func methods(_ container: MarkupElement?) -> [String: Method] {
        var result: [String: Method] = [:]
        for method in container?.elements ?? [] where method.localName == "method" {
            guard let name = method.attribute("name") else { continue }
            var inputs: [Parameter] = []
            var outputs: [Parameter] = []
            for parameter in method.element("parameters")?.elements ?? [] where parameter.localName == "param" {
                let value = Parameter(
                    name: parameter.attribute("name") ?? "", type: parameter.attribute("type") ?? "string")
                let direction = parameter.attribute("inout") ?? "in"
                if direction == "in" || direction == "inout" { inputs.append(value) }
                if direction == "out" || direction == "inout" { outputs.append(value) }
            }
            result[name] = Method(
                name: name, isStatic: method.attribute("static") == "true",
                isAnonymous: method.attribute("access") == "anonymous", inputs: inputs, outputs: outputs)
        }
        return result
    }

    /// The method a SOAP service string names: `xtk:session` (its own methods and those of the interfaces
    /// it implements), `xtk:persist` (the interface schema), or `xtk:persist|xtk:session` (the interface's
    /// methods as the schema implements them, as acc-js-sdk calls `Write`).
    package func method(service: String, name: String) -> Method? {
        let parts = service.split(separator: "|").map(String.init)
        if parts.count == 2 {
            guard let schema = schemas[parts[1]], schema.implements.contains(parts[0]) else { return nil }
            return schema.interfaceMethods[name]
        }
        guard let schema = schemas[service] else { return nil }
        return schema.methods[name] ?? schema.interfaceMethods[name]
    }

    /// The schema `ExecuteQuery` reads, for checking the attributes a query names.
    package func schema(_ id: String) -> Schema? { schemas[id] }
}

/// A schema document of the catalogue that cannot be used.
package struct SchemaCatalogueError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
