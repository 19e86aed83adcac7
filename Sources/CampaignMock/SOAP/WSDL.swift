import CampaignMockCore

/// `GET /nl/jsp/schemawsdl.jsp?schema=xtk:session`: a WSDL 1.1 description (document/literal) of the
/// methods this mock serves for a schema, good enough for a stock SOAP client to call them.
enum WSDL {
    enum Kind {
        case string, boolean, long
        /// Literal XML (`ns:Element`): a queryDef, a recipient, session info.
        case element
    }

    struct Operation {
        let name: String
        let inputs: [(String, Kind)]
        let outputs: [(String, Kind)]
    }

    /// The methods per schema; the first input is always the session token (docs/protocol.md §5.1).
    static let services: [String: [Operation]] = [
        "xtk:session": [
            Operation(
                name: "Logon",
                inputs: [
                    ("sessiontoken", .string), ("strLogin", .string), ("strPassword", .string),
                    ("elemParameters", .element),
                ],
                outputs: [("pstrSessionToken", .string), ("pSessionInfo", .element), ("pstrSecurityToken", .string)]),
            Operation(name: "Logoff", inputs: [("sessiontoken", .string)], outputs: []),
        ],
        "nms:subscription": [
            Operation(
                name: "Subscribe",
                inputs: [("sessiontoken", .string), ("service", .string), ("content", .element), ("create", .boolean)],
                outputs: []),
            Operation(
                name: "Unsubscribe", inputs: [("sessiontoken", .string), ("service", .string), ("content", .element)],
                outputs: []),
        ],
        "nms:rtEvent": [
            Operation(
                name: "PushEvent", inputs: [("sessiontoken", .string), ("domEvent", .element)],
                outputs: [("plId", .long)])
        ],
        "xtk:queryDef": [
            Operation(
                name: "ExecuteQuery", inputs: [("sessiontoken", .string), ("entity", .element)],
                outputs: [("pdomOutput", .element)])
        ],
    ]

    /// The WSDL for `schema`, with the router at `location`; nil for a schema without methods here.
    static func document(schema: String, location: String) -> String? {
        guard let operations = services[schema] else { return nil }
        let target = "urn:\(schema)"
        let service = schema.split(separator: ":").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        func type(_ kind: Kind) -> String {
            switch kind {
            case .string: return "s:string"
            case .boolean: return "s:boolean"
            case .long: return "s:long"
            case .element: return "ns:Element"
            }
        }
        func sequence(_ parameters: [(String, Kind)]) -> String {
            parameters.map { #"<s:element name="\#($0.0)" type="\#(type($0.1))" minOccurs="0"/>"# }.joined()
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
    static func decide(_ request: HTTPRequest) throws -> EndpointResult {
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
