import CampaignMockHTTP
import CampaignMockSupport

/// SOAP 1.1 reply envelopes, in the shape Campaign writes them (docs/protocol.md §5.1-§5.2).
enum SOAPResponse {
    static let envelopeNamespace = "http://schemas.xmlsoap.org/soap/envelope/"
    static let encodingStyle = "http://schemas.xmlsoap.org/soap/encoding/"
    static let literalXML = "http://xml.apache.org/xml-soap/literalxml"

    /// A `text/xml` response wrapping `body` in an envelope.
    static func envelope(_ body: String, status: HTTPStatus = .ok) -> HTTPResponse {
        let text =
            "<?xml version='1.0'?>\n"
            + XMLOutput.element(
                "SOAP-ENV:Envelope",
                [
                    ("xmlns:xsd", "http://www.w3.org/2001/XMLSchema"),
                    ("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"),
                    ("xmlns:ns", "http://xml.apache.org/xml-soap"), ("xmlns:SOAP-ENV", envelopeNamespace),
                ],
                content: XMLOutput.element("SOAP-ENV:Body", content: body))
        return .content(status, type: "text/xml; charset=utf-8", Array(text.utf8))
    }

    /// `<MethodResponse xmlns='urn:ns:schema' SOAP-ENV:encodingStyle='…'>…</MethodResponse>`.
    static func method(_ method: String, service: String, namespace: String? = nil, _ content: String) -> HTTPResponse {
        envelope(
            XMLOutput.element(
                "\(method)Response",
                [("xmlns", namespace ?? "urn:\(service)"), ("SOAP-ENV:encodingStyle", encodingStyle)],
                content: content))
    }

    /// The answer of `method` with one value per output parameter the catalogue declares, each with its
    /// declared `xsi:type`: text for scalars (escaped here), XML for documents.
    static func outputs(
        _ method: SchemaCatalogue.Method, service: String, namespace: String? = nil, _ values: [String]
    ) -> HTTPResponse {
        precondition(values.count == method.outputs.count, "\(method.name) answers \(method.outputs.count) values")
        let content = zip(method.outputs, values).map { parameter, value in
            parameter.isDocument
                ? document(parameter.name, value)
                : XMLOutput.textElement(parameter.name, value, attributes: [("xsi:type", parameter.xsiType)])
        }
        return Self.method(method.name, service: service, namespace: namespace, content.joined())
    }

    /// An `xsd:string` output parameter.
    static func string(_ name: String, _ value: String) -> String {
        XMLOutput.textElement(name, value, attributes: [("xsi:type", "xsd:string")])
    }

    /// A literal-XML output parameter holding `xml`.
    static func document(_ name: String, _ xml: String) -> String {
        XMLOutput.element(name, [("xsi:type", "ns:Element"), ("SOAP-ENV:encodingStyle", literalXML)], content: xml)
    }
}
