package import CampaignMockModel

/// Which Campaign endpoint a request reached, as the journal, the metrics, fault rules and the event
/// stream name it. A type rather than a string, so a misspelt family does not compile (it used to match
/// only `any` fault rules, silently).
package enum EndpointFamily: String, Sendable, CaseIterable {
    case registrationIOS = "registration-ios"
    case registrationAndroid = "registration-android"
    case tracking
    case soap
    case health
    /// A path no Campaign endpoint serves (answered 404).
    case unknown

    package static func registration(_ platform: Platform) -> EndpointFamily {
        switch platform {
        case .ios: .registrationIOS
        case .android: .registrationAndroid
        }
    }

    var isRegistration: Bool { self == .registrationIOS || self == .registrationAndroid }

    /// The fault rules' name for it; a request to an unknown path is matched by `any` rules only.
    var faultEndpoint: FaultRule.Endpoint {
        switch self {
        case .registrationIOS: .registrationIOS
        case .registrationAndroid: .registrationAndroid
        case .tracking: .tracking
        case .soap: .soap
        case .health: .health
        case .unknown: .any
        }
    }
}
