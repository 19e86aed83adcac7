import CampaignMockHTTP
import CampaignMockNetwork
import CampaignMockSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A listening address that cannot be bound, told in the user's terms: which address, which flag sets
/// it, and what to do.
struct ListenError: Error, CustomStringConvertible {
    let description: String

    /// The error for a failed `bind`, or nil for any other failure.
    init?(_ failure: SystemCallError, listeners: HTTPServerConfiguration) {
        guard failure.operation.hasPrefix("bind ") else { return nil }
        let address = String(failure.operation.dropFirst("bind ".count))
        let isTLS = listeners.tls.map { address == $0.address.description } ?? false
        let flag = isTLS ? "--tls-port" : "--port"
        let reason: String
        switch failure.errno {
        case EADDRINUSE:
            reason =
                "the port is already in use (another campaign-mock or another server); choose another with "
                + "\(flag) PORT, or \(flag) 0 for any free port"
        case EACCES:
            reason = "permission denied (ports below 1024 need privileges); choose another with \(flag) PORT"
        case EADDRNOTAVAIL:
            reason = "this machine has no such address; check --host (0.0.0.0 listens on every interface)"
        default:
            reason = String(cString: strerror(failure.errno))
        }
        description = "cannot listen on \(address) (\(flag)): \(reason)"
    }
}
