import CampaignMockHTTP
package import CampaignMockModel
import CampaignMockSupport

/// Every way a registration is refused, with the status and body of docs/product.md §3.1. The body is the
/// `errorReason` a legacy iOS SDK shows.
package enum RegistrationError: Error, Equatable {
    case missingIntegrationKey
    case unknownIntegrationKey(String)
    case wrongPlatform(key: String, platform: Platform)
    case disabled(name: String)
    case missingRegistrationToken
    /// Bad percent-encoding, not UTF-8, bad XML, duplicate parameters: a one-line reason naming the field.
    case malformed(String)
    case unsupportedContentType(String?)
    case methodNotAllowed
    /// A field over its bound (``RegistrationBounds``): the field and the bound, in bytes.
    case tooLong(field: String, limit: Int)
    /// More params than ``RegistrationBounds/params``.
    case tooManyParams(Int)
    /// A registration token holding a control character (C0, DEL, C1): no provider issues one.
    case controlCharacter(field: String)
    /// From another site's page (``HTTPRequest/crossSiteOrigin``): no SDK is a browser.
    case fromPage(String)

    /// A short code for metrics labels.
    var code: String {
        switch self {
        case .missingIntegrationKey: return "missing_key"
        case .unknownIntegrationKey: return "unknown_key"
        case .wrongPlatform: return "wrong_platform"
        case .disabled: return "disabled"
        case .missingRegistrationToken: return "missing_token"
        case .malformed: return "malformed"
        case .unsupportedContentType: return "content_type"
        case .methodNotAllowed: return "method"
        case .tooLong, .tooManyParams: return "too_long"
        case .controlCharacter: return "control_character"
        case .fromPage: return "cross_site"
        }
    }

    var httpError: HTTPError {
        switch self {
        case .missingIntegrationKey:
            return HTTPError(.badRequest, "Missing integration key (mobileAppUuid)")
        case .unknownIntegrationKey(let key):
            return HTTPError(.notFound, "Unknown integration key (mobileAppUuid): \(key)")
        case .wrongPlatform(let key, let platform):
            return HTTPError(.badRequest, "Integration key \(key) belongs to \(platform.withArticle) application")
        case .disabled(let name):
            return HTTPError(.forbidden, "Application \(name) is disabled")
        case .missingRegistrationToken:
            return HTTPError(.badRequest, "Missing registrationToken")
        case .malformed(let reason):
            return HTTPError(.badRequest, reason)
        case .unsupportedContentType(let type):
            return HTTPError(
                .unsupportedMediaType,
                "Expected Content-Type application/x-www-form-urlencoded, got \(type.map { "'\($0)'" } ?? "none")")
        case .methodNotAllowed:
            return HTTPError(.methodNotAllowed, "Registration takes POST", headers: [.allow: "POST"])
        case .tooLong(let field, let limit):
            return HTTPError(.badRequest, "\(field) is longer than \(limit) bytes")
        case .tooManyParams(let limit):
            return HTTPError(.badRequest, "additionalParams holds more than \(limit) params")
        case .controlCharacter(let field):
            return HTTPError(.badRequest, "\(field) holds a control character")
        case .fromPage(let site):
            return HTTPError(
                .forbidden,
                "Registration refused: it comes from a page on \(ClientText.capped(site, bytes: 128)); no SDK is a "
                    + "browser")
        }
    }
}
