/// Which Campaign endpoint a request reached, as the journal, the metrics, the fault rules and the event
/// stream name it, and what a fault rule matches (``FaultRule/Endpoint``). A type rather than a string,
/// so a misspelt family does not compile (it used to match only `any` fault rules, silently).
public enum EndpointFamily: String, Sendable, ClosedSet {
    case registrationIOS = "registration-ios"
    case registrationAndroid = "registration-android"
    case tracking
    case soap
    case health
    /// A path no Campaign endpoint serves (answered 404).
    case unknown
    /// Every family: what a fault rule names to match every Campaign endpoint (never the admin API). No
    /// request is of it.
    case any

    /// The registration endpoint of `platform`.
    public static func registration(_ platform: Platform) -> EndpointFamily {
        switch platform {
        case .ios: .registrationIOS
        case .android: .registrationAndroid
        }
    }

    public var isRegistration: Bool { self == .registrationIOS || self == .registrationAndroid }

    /// Whether a fault rule naming this family matches a request of `family`.
    public func matches(_ family: EndpointFamily) -> Bool { self == .any || self == family }
}
