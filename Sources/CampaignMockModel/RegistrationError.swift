/// Every way a registration is refused (docs/product.md §3.1): what the registration endpoint throws, and
/// what the integration checks are told of a refusal (``RequestFact/refusal``), so that they read the cause
/// as a type rather than the words of the answer.
package enum RegistrationError: Error, Equatable, Sendable {
    case missingIntegrationKey
    case unknownIntegrationKey(String)
    case wrongPlatform(key: String, platform: Platform)
    case disabled(name: String)
    case missingRegistrationToken
    /// Bad percent-encoding, not UTF-8, bad XML, duplicate parameters: a one-line reason naming the field.
    case malformed(String)
    case unsupportedContentType(String?)
    case methodNotAllowed
    /// A field over its bound (`RegistrationBounds`): the field and the bound, in bytes.
    case tooLong(field: String, limit: Int)
    /// More params than `RegistrationBounds.params`.
    case tooManyParams(Int)
    /// A registration token holding a control character (C0, DEL, C1): no provider issues one.
    case controlCharacter(field: String)
    /// From another site's page (`HTTPRequest.crossSiteOrigin`), named at most 128 bytes: no SDK is a
    /// browser.
    case fromPage(String)

    /// A short code for metrics labels.
    package var code: String {
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

    /// The body of the answer: the `errorReason` a legacy iOS SDK shows.
    package var reason: String {
        switch self {
        case .missingIntegrationKey: "Missing integration key (mobileAppUuid)"
        case .unknownIntegrationKey(let key): "Unknown integration key (mobileAppUuid): \(key)"
        case .wrongPlatform(let key, let platform):
            "Integration key \(key) belongs to \(platform.withArticle) application"
        case .disabled(let name): "Application \(name) is disabled"
        case .missingRegistrationToken: "Missing registrationToken"
        case .malformed(let reason): reason
        case .unsupportedContentType(let type):
            "Expected Content-Type application/x-www-form-urlencoded, got \(type.map { "'\($0)'" } ?? "none")"
        case .methodNotAllowed: "Registration takes POST"
        case .tooLong(let field, let limit): "\(field) is longer than \(limit) bytes"
        case .tooManyParams(let limit): "additionalParams holds more than \(limit) params"
        case .controlCharacter(let field): "\(field) holds a control character"
        case .fromPage(let site): "Registration refused: it comes from a page on \(site); no SDK is a browser"
        }
    }
}
