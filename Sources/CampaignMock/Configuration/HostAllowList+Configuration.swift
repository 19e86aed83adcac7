import CampaignMockHTTP
import CampaignMockNetwork

extension HostAllowList {
    /// The names a server built from `configuration` allows besides the defaults.
    static func names(for configuration: Configuration) -> [String] {
        var names = configuration.allowedHosts + configuration.tlsNames + [configuration.http.address.host]
        let host = configuration.http.address.host
        if host == "0.0.0.0" || host == "::" {
            let machine = NetworkInterfaces.hostname()
            names += [machine, machine + ".local"]
        }
        return names
    }
}
