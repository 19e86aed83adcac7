import CampaignMockHTTP
import CampaignMockSupport

/// A SOAP 1.1 fault (docs/protocol.md §5.3), answered with HTTP 500, or 403 for a bad session (docs/product.md
/// §10, U8).
package struct SOAPFault: Error, Equatable {
    enum Code: String {
        case client = "SOAP-ENV:Client"
        case server = "SOAP-ENV:Server"
        case versionMismatch = "SOAP-ENV:VersionMismatch"
    }

    let code: Code
    let string: String
    let detail: String?
    let status: HTTPStatus

    init(_ code: Code, _ string: String, detail: String? = nil, status: HTTPStatus = .internalServerError) {
        self.code = code
        self.string = string
        self.detail = detail
        self.status = status
    }

    /// `SOP-330006`: the method does not exist in the service.
    static func unknownMethod(_ method: String, service: String) -> SOAPFault {
        SOAPFault(.client, "SOP-330006 The method '\(method)' is not defined in SOAP service '\(service)'.")
    }

    /// `SOP-330011`: the method failed; `detail` says why.
    static func methodFailed(_ method: String, service: String, _ detail: String) -> SOAPFault {
        SOAPFault(
            .client, "SOP-330011 Error while executing the method '\(method)' of service '\(service)'.", detail: detail)
    }

    /// The parameters could not be read; `detail` says which and why.
    static func badParameters(_ method: String, service: String, _ detail: String) -> SOAPFault {
        SOAPFault(
            .client, "Error while reading parameters of method '\(method)' of service '\(service)'.", detail: detail)
    }

    /// The XML is not a SOAP message (the parser's words go in the detail).
    static func invalidMessage(service: String?, method: String?, _ detail: String) -> SOAPFault {
        SOAPFault(
            .client, "The XML SOAP message is invalid (service '\(service ?? "")', method '\(method ?? "")').",
            detail: detail)
    }

    /// `XSV-350008`, with HTTP 403 since NEO-16826.
    static func badSession(_ detail: String) -> SOAPFault {
        SOAPFault(
            .client, "XSV-350008 Session has expired or is invalid. Please reconnect.", detail: detail,
            status: .forbidden)
    }

    var response: HTTPResponse {
        var fault =
            XMLOutput.textElement("faultcode", code.rawValue)
            + XMLOutput.textElement("faultstring", string, attributes: [("xsi:type", "xsd:string")])
        if let detail {
            // The detail is free text (often a parser's message), so it travels as CDATA.
            let safe = detail.replacing("]]>", with: "]]]]><![CDATA[>")
            fault += XMLOutput.element("detail", [("xsi:type", "xsd:string")], content: "<![CDATA[\(safe)]]>")
        }
        return SOAPResponse.envelope(XMLOutput.element("SOAP-ENV:Fault", content: fault), status: status)
    }
}
