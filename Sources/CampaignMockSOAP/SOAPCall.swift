package import CampaignMockHTTP
package import CampaignMockSupport

/// A SOAP request read from its envelope: which method of which service, with which parameters.
package struct SOAPCall {
    /// `xtk:session`.
    package let service: String
    /// `Logon`.
    package let method: String
    /// The method element's children, in order; the first is the session token (docs/protocol.md §5.1).
    let parameters: [MarkupElement]
    /// The method as the schema catalogue declares it, once the router found it: where each parameter is.
    package var declaration: SchemaCatalogue.Method?

    /// Reads the envelope of `request` and cross-checks it with `SOAPAction` (or `?soapAction=`).
    ///
    /// - Throws: ``SOAPFault`` for anything that is not a SOAP 1.1 call.
    package init(_ request: HTTPRequest) throws(SOAPFault) {
        let action = Self.action(request)
        let root: MarkupElement
        do {
            root = try XMLReader.parse(request.body)
        } catch {
            throw .invalidMessage(service: action?.service, method: action?.method, "\(error)")
        }
        if root.localName == "Envelope" && root.namespace == "http://www.w3.org/2003/05/soap-envelope" {
            throw SOAPFault(.versionMismatch, "SOAP 1.2 is not supported; send a SOAP 1.1 envelope")
        }
        guard root.localName == "Envelope", root.namespace == SOAPResponse.envelopeNamespace else {
            throw .invalidMessage(
                service: action?.service, method: action?.method,
                "the root element is not a SOAP 1.1 Envelope (\(SOAPResponse.envelopeNamespace))")
        }
        guard let body = root.elements.first(where: { $0.localName == "Body" && $0.namespace == root.namespace }),
            let call = body.elements.first
        else {
            throw .invalidMessage(service: action?.service, method: action?.method, "the Body has no method element")
        }
        let bodyService = call.namespace.flatMap { $0.hasPrefix("urn:") ? String($0.dropFirst(4)) : nil }
        guard let service = bodyService ?? action?.service else {
            throw .invalidMessage(
                service: nil, method: call.localName, "the method element has no urn:<namespace>:<schema> namespace")
        }
        if let action, action.service != service || action.method != call.localName {
            throw .invalidMessage(
                service: service, method: call.localName,
                "SOAPAction '\(action.service)#\(action.method)' does not match the body's '\(service)#\(call.localName)'"
            )
        }
        self.service = service
        method = call.localName
        parameters = call.elements
    }

    /// `SOAPAction: "xtk:session#Logon"` or `?soapAction=xtk:session%23Logon`, split.
    private static func action(_ request: HTTPRequest) -> (service: String, method: String)? {
        let query = PercentEncoding.queryItems(request.query)?.first { $0.name == "soapAction" }?.value
        guard var value = request.headers[HTTPHeaderName(rawValue: "SOAPAction")] ?? query else { return nil }
        value = value.trimmingASCIISpaces()
        if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 {
            value = String(value.dropFirst().dropLast())
        }
        if value.hasPrefix("urn:") { value = String(value.dropFirst(4)) }
        let parts = value.split(separator: "#", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    /// The input parameter the catalogue declares as `name`, found by its position as Campaign reads
    /// parameters: the session token, then (for a non-static method) the object, then the inputs in the
    /// declared order.
    func parameter(_ name: String) throws(SOAPFault) -> MarkupElement {
        guard let declaration, let index = declaration.inputs.firstIndex(where: { $0.name == name }) else {
            throw SOAPFault(.server, "the method \(method) declares no parameter '\(name)'")
        }
        return try parameter(at: 1 + (declaration.isStatic ? 0 : 1) + index, name)
    }

    /// The object a non-static method is called on (a queryDef, say): the parameter after the session token.
    package func object() throws(SOAPFault) -> MarkupElement {
        let element = try parameter(at: 1, "entity")
        guard let document = element.elements.first else {
            throw .badParameters(method, service: service, "the object must be an XML element")
        }
        return document
    }

    private func parameter(at position: Int, _ name: String) throws(SOAPFault) -> MarkupElement {
        guard position < parameters.count else {
            throw .badParameters(method, service: service, "parameter \(position + 1) ('\(name)') is missing")
        }
        return parameters[position]
    }

    /// A string parameter's text.
    package func string(_ name: String) throws(SOAPFault) -> String {
        try parameter(name).text
    }

    /// A literal-XML parameter: its single element.
    package func document(_ name: String) throws(SOAPFault) -> MarkupElement {
        let element = try parameter(name)
        guard let document = element.elements.first else {
            throw .badParameters(method, service: service, "parameter '\(name)' must hold an XML element")
        }
        return document
    }

    /// A boolean parameter (`true`/`1`).
    func boolean(_ name: String) throws(SOAPFault) -> Bool {
        switch try string(name).trimmingASCIISpaces().lowercased() {
        case "true", "1": return true
        case "false", "0", "": return false
        case let other:
            throw .badParameters(method, service: service, "parameter '\(name)' is not a boolean: '\(other)'")
        }
    }
}
