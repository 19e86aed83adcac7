package import CampaignMockHTTP
package import CampaignMockRuntime
import CampaignMockSupport

/// `GET /nl/jsp/schemawsdl.jsp?schema=xtk:session`: a WSDL 1.1 description (document/literal) of the
/// methods the schema catalogue declares for a schema, good enough for a stock SOAP client to call them.
package enum WSDL {
    struct Operation {
        let name: String
        let inputs: [SchemaCatalogue.Parameter]
        let outputs: [SchemaCatalogue.Parameter]
    }

    /// The operations per schema, from the catalogue: the schema's methods and those of the interfaces it
    /// implements. The first input is always the session token (docs/protocol.md §5.1); a non-static
    /// method's object follows it as `entity`.
    static let services: [String: [Operation]] = {
        var result: [String: [Operation]] = [:]
        for (id, schema) in SchemaCatalogue.builtIn.schemas {
            let methods = schema.methods.merging(schema.interfaceMethods) { own, _ in own }
            guard !methods.isEmpty else { continue }
            result[id] = methods.values.sorted { $0.name < $1.name }.map { method in
                let session = SchemaCatalogue.Parameter(name: "sessiontoken", type: "string")
                let object = SchemaCatalogue.Parameter(name: "entity", type: "DOMDocument")
                return Operation(
                    name: method.name, inputs: [session] + (method.isStatic ? [] : [object]) + method.inputs,
                    outputs: method.outputs)
            }
        }
        return result
    }()

    /// The WSDL for `schema`, with the router at `location`; nil for a schema without methods here.
    static func document(schema: String, location: String) -> String? {
        guard let operations = services[schema] else { return nil }
        let target = "urn:\(schema)"
        let service = schema.split(separator: ":").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        func sequence(_ parameters: [SchemaCatalogue.Parameter]) -> String {
            parameters.map { parameter in
                let type = parameter.isDocument ? "ns:Element" : parameter.xsiType.replacing("xsd:", with: "s:")
                return #"<s:element name="\#(parameter.name)" type="\#(type)" minOccurs="0"/>"#
            }.joined()
        }
        let elements = operations.map { operation in
            #"<s:element name="\#(operation.name)"><s:complexType><s:sequence>\#(sequence(operation.inputs))</s:sequence></s:complexType></s:element>"#
                + #"<s:element name="\#(operation.name)Response"><s:complexType><s:sequence>\#(sequence(operation.outputs))</s:sequence></s:complexType></s:element>"#
        }.joined()
        let messages = operations.map { operation in
            #"<wsdl:message name="\#(operation.name)In"><wsdl:part name="parameters" element="tns:\#(operation.name)"/></wsdl:message>"#
                + #"<wsdl:message name="\#(operation.name)Out"><wsdl:part name="parameters" element="tns:\#(operation.name)Response"/></wsdl:message>"#
        }.joined()
        let portOperations = operations.map { operation in
            #"<wsdl:operation name="\#(operation.name)"><wsdl:input message="tns:\#(operation.name)In"/><wsdl:output message="tns:\#(operation.name)Out"/></wsdl:operation>"#
        }.joined()
        let bindingOperations = operations.map { operation in
            #"<wsdl:operation name="\#(operation.name)"><soap:operation soapAction="\#(schema)#\#(operation.name)" style="document"/>"#
                + #"<wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>"#
        }.joined()
        return """
            <?xml version="1.0" encoding="utf-8"?>
            <wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" \
            xmlns:s="http://www.w3.org/2001/XMLSchema" xmlns:ns="http://xml.apache.org/xml-soap" xmlns:tns="\(target)" \
            targetNamespace="\(target)">
            <wsdl:types>
            <s:schema elementFormDefault="qualified" targetNamespace="http://xml.apache.org/xml-soap">\
            <s:complexType name="Element" mixed="true"><s:sequence><s:any processContents="lax" minOccurs="0" maxOccurs="unbounded"/>\
            </s:sequence><s:anyAttribute processContents="lax"/></s:complexType></s:schema>
            <s:schema elementFormDefault="qualified" targetNamespace="\(target)">\
            <s:import namespace="http://xml.apache.org/xml-soap"/>\(elements)</s:schema>
            </wsdl:types>
            \(messages)
            <wsdl:portType name="\(service)MethodsSoap">\(portOperations)</wsdl:portType>
            <wsdl:binding name="\(service)MethodsSoap" type="tns:\(service)MethodsSoap">\
            <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>\(bindingOperations)</wsdl:binding>
            <wsdl:service name="\(service)"><wsdl:port name="\(service)MethodsSoap" binding="tns:\(service)MethodsSoap">\
            <soap:address location="\(XMLOutput.escape(location))"/></wsdl:port></wsdl:service>
            </wsdl:definitions>

            """
    }

    /// The endpoint body: the WSDL for `?schema=`, pointing at this server's router.
    package static func decide(_ request: HTTPRequest) throws -> EndpointResult {
        guard request.method == .get || request.method == .head else {
            throw HTTPError(.methodNotAllowed, "The WSDL page takes GET", headers: [.allow: "GET, HEAD"])
        }
        let schema = PercentEncoding.queryItems(request.query)?.first { $0.name == "schema" }?.value ?? ""
        let host = request.headers[.host] ?? "localhost"
        let location = "\(request.isSecure ? "https" : "http")://\(host)/nl/jsp/soaprouter.jsp"
        guard let document = document(schema: schema, location: location) else {
            let known = services.keys.sorted().joined(separator: ", ")
            throw HTTPError(.notFound, "No WSDL for schema '\(schema)' (this mock serves \(known))")
        }
        return EndpointResult(response: .content(.ok, type: "text/xml; charset=utf-8", Array(document.utf8)))
    }
}
