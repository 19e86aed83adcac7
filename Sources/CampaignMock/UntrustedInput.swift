import CampaignMockCore
import CampaignMockMobile
import CampaignMockSOAP
import CampaignMockStorage

/// The readers of untrusted bytes, one entry each, for the fuzz targets (`Fuzz/`, `make fuzz`) and the
/// test that runs their corpus. Each reads what it is given and throws the result away: the only
/// outcomes that matter are a clean answer or a clean error.
package enum UntrustedInput: String, CaseIterable, Sendable {
    /// The HTTP/1.1 request parser, fed the bytes in two pieces (split at the first byte's value).
    case httpRequest = "http-request"
    /// A registration's form body.
    case form
    /// The `additionalParams` XML of a registration.
    case additionalParams = "additional-params"
    /// A tracking `id` (`h<messageId>,<deliveryId>,<tag>`).
    case trackingID = "tracking-id"
    /// A SOAP envelope, read as the router reads it.
    case soapEnvelope = "soap-envelope"

    package func read(_ bytes: [UInt8]) {
        switch self {
        case .httpRequest:
            var parser = HTTPRequestParser()
            let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
            parser.append(Array(bytes[..<split]))
            // A head waiting for the server's decision is admitted, as the listener admits most.
            func parseAll() throws(HTTPError) {
                while let event = try parser.next() {
                    if case .head = event { _ = try parser.admit(lease: nil) }
                }
            }
            do {
                try parseAll()
                parser.append(Array(bytes[split...]))
                try parseAll()
            } catch {}
        case .form:
            _ = try? FormBody(parsing: bytes)
        case .additionalParams:
            _ = try? AdditionalParamsReader.parse(String(decoding: bytes, as: UTF8.self))
        case .trackingID:
            _ = try? TrackingID(parsing: String(decoding: bytes, as: UTF8.self))
        case .soapEnvelope:
            let request = HTTPRequest(
                method: .post, target: "/nl/jsp/soaprouter.jsp", headers: [.contentType: "text/xml"], body: bytes)
            if var call = try? SOAPCall(request) {
                call.declaration = SchemaCatalogue.builtIn.method(service: call.service, name: call.method)
                for input in call.declaration?.inputs ?? [] {
                    _ = try? call.string(input.name)
                    _ = try? call.document(input.name)
                }
                _ = try? call.object()
            }
        }
    }
}
