#if canImport(Glibc)
    import CLinux
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 socket address.
package struct SocketAddress: Sendable, Equatable, CustomStringConvertible {
    package enum Family: Sendable, Equatable {
        case ipv4
        case ipv6
    }

    /// The numeric host, `127.0.0.1` or `::1`.
    package let host: String
    /// The port in host byte order.
    package let port: UInt16
    package let family: Family
    /// `127.0.0.1:8080` or `[::1]:8080`. Made once: the journal writes it for every request, and
    /// formatting it there cost 700 instructions a request.
    package let description: String

    package init(host: String, port: UInt16, family: Family) {
        self.host = host
        self.port = port
        self.family = family
        description = family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Parses a numeric IPv4 or IPv6 host (`localhost` means 127.0.0.1).
    ///
    /// - Throws: ``SocketAddressError`` when the host is not a numeric address.
    package init(parsing host: String, port: UInt16) throws(SocketAddressError) {
        let numeric = host == "localhost" ? "127.0.0.1" : host
        let bare =
            numeric.hasPrefix("[") && numeric.hasSuffix("]")
            ? String(numeric.dropFirst().dropLast()) : numeric
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            self.init(host: bare, port: port, family: .ipv4)
        } else if inet_pton(AF_INET6, bare, &v6) == 1 {
            self.init(host: bare, port: port, family: .ipv6)
        } else {
            throw SocketAddressError(host: host)
        }
    }

    /// Whether the address is on the loopback network (127.0.0.0/8, ::1, or ::ffff:127.x.y.z).
    package var isLoopback: Bool {
        switch family {
        case .ipv4: return host.hasPrefix("127.")
        case .ipv6: return host == "::1" || host.lowercased().hasPrefix("::ffff:127.")
        }
    }
}

/// A host that is not a numeric IPv4 or IPv6 address.
package struct SocketAddressError: Error, Equatable, CustomStringConvertible {
    package let host: String
    package var description: String {
        "'\(host)' is not a numeric IPv4 or IPv6 address (use e.g. 127.0.0.1, 0.0.0.0, ::1 or ::)"
    }
}
