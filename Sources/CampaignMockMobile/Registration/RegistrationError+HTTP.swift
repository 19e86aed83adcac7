import CampaignMockHTTP
import CampaignMockModel

extension RegistrationError {
    /// The answer, with the status of docs/product.md §3.1 and the ``RegistrationError/reason`` as its body.
    var httpError: HTTPError {
        switch self {
        case .unknownIntegrationKey: HTTPError(.notFound, reason)
        case .disabled, .fromPage: HTTPError(.forbidden, reason)
        case .unsupportedContentType: HTTPError(.unsupportedMediaType, reason)
        case .methodNotAllowed: HTTPError(.methodNotAllowed, reason, headers: [.allow: "POST"])
        case .missingIntegrationKey, .wrongPlatform, .missingRegistrationToken, .malformed, .tooLong, .tooManyParams,
            .controlCharacter:
            HTTPError(.badRequest, reason)
        }
    }
}
