package import CampaignMockHTTP
package import CampaignMockNetwork

/// Where the mock is reached: its plain HTTP and HTTPS addresses, with real ports. A listener gives the ones
/// it bound; the in-process test harness gives the configured ones, as nothing binds there.
package struct ListeningAddresses: Sendable, Equatable {
    /// The plain HTTP address; nil without plain HTTP.
    package var plain: SocketAddress?
    /// The HTTPS address; nil without HTTPS.
    package var tls: SocketAddress?

    package init(plain: SocketAddress?, tls: SocketAddress? = nil) {
        precondition(plain != nil || tls != nil, "the mock is reached over plain HTTP, HTTPS or both")
        self.plain = plain
        self.tls = tls
    }

    /// The addresses a listener with this configuration would bind, as configured (port 0 stays 0).
    package init(configured listener: HTTPServerConfiguration) {
        self.init(plain: listener.plainHTTP ? listener.address : nil, tls: listener.tls?.address)
    }

    /// `https://localhost:8443`, when HTTPS is on.
    package var httpsURL: String? {
        tls.map { address in
            address.host == "0.0.0.0" || address.host == "::" || address.isLoopback
                ? "https://localhost:\(address.port)" : "https://\(address)"
        }
    }

    /// `http://127.0.0.1:8080`: the address clients on this machine use (a wildcard host shows as loopback);
    /// the HTTPS URL when there is no plain HTTP.
    package var baseURL: String {
        guard var address = plain else { return httpsURL ?? "" }
        if address.host == "0.0.0.0" { address = SocketAddress(host: "127.0.0.1", port: address.port, family: .ipv4) }
        if address.host == "::" { address = SocketAddress(host: "::1", port: address.port, family: .ipv6) }
        return "http://\(address)"
    }

    /// The URLs a device uses, with what each is for: the Android emulator's alias of this machine's
    /// loopback (`10.0.2.2`) always, and the machine's network addresses when the server listens beyond
    /// loopback (a wildcard host, or one address).
    package var deviceURLs: [(url: String, use: String)] {
        let listening = [plain.map { ("http", $0) }, tls.map { ("https", $0) }].compactMap { $0 }
        var urls: [(url: String, use: String)] = []
        for (scheme, address) in listening {
            let wildcard = address.host == "0.0.0.0" || address.host == "::"
            if wildcard || address.isLoopback {
                urls.append(("\(scheme)://10.0.2.2:\(address.port)", "Android emulator"))
            }
            let hosts =
                address.host == "0.0.0.0"
                ? NetworkInterfaces.nonLoopbackAddresses().filter { !$0.contains(":") }
                : address.host == "::"
                    ? NetworkInterfaces.nonLoopbackAddresses()
                    : address.isLoopback ? [] : [address.host]
            for host in hosts {
                let shown = SocketAddress(host: host, port: address.port, family: host.contains(":") ? .ipv6 : .ipv4)
                urls.append(("\(scheme)://\(shown)", "a phone or another machine on this network"))
            }
        }
        return urls
    }
}
