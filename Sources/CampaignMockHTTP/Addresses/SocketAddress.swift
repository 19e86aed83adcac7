package import CampaignMockSystem

// `package`: the socket code of CampaignMockNetwork converts addresses to and from the kernel's `sockaddr`.
#if canImport(Glibc)
    package import CLinux
    import Glibc
#elseif canImport(Darwin)
    package import Darwin
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

    /// Calls `body` with this address as a `sockaddr`.
    package func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemCallError) -> R)
        throws(SystemCallError) -> R
    {
        switch family {
        case .ipv4:
            var storage = sockaddr_in()
            storage.sin_family = sa_family_t(AF_INET)
            storage.sin_port = port.bigEndian
            _ = inet_pton(AF_INET, host, &storage.sin_addr)
            return try Self.rebound(&storage, body)
        case .ipv6:
            var storage = sockaddr_in6()
            storage.sin6_family = sa_family_t(AF_INET6)
            storage.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, host, &storage.sin6_addr)
            return try Self.rebound(&storage, body)
        }
    }

    private static func rebound<S, R>(
        _ storage: inout S,
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemCallError) -> R
    ) throws(SystemCallError) -> R {
        let size = socklen_t(MemoryLayout<S>.size)
        return try withUnsafePointer(to: &storage) { (pointer) throws(SystemCallError) -> R in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (address) throws(SystemCallError) -> R in
                try body(address, size)
            }
        }
    }

    /// Reads an address that the kernel filled in.
    package init?(storage: sockaddr_storage) {
        var copy = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let value = withUnsafePointer(to: &copy) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
            }
            var address = value.sin_addr
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
            self.init(host: Self.string(text), port: UInt16(bigEndian: value.sin_port), family: .ipv4)
        case AF_INET6:
            let value = withUnsafePointer(to: &copy) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
            }
            var address = value.sin6_addr
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
            self.init(host: Self.string(text), port: UInt16(bigEndian: value.sin6_port), family: .ipv6)
        default:
            return nil
        }
    }

    private static func string(_ text: [CChar]) -> String {
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A host that is not a numeric IPv4 or IPv6 address.
package struct SocketAddressError: Error, Equatable, CustomStringConvertible {
    package let host: String
    package var description: String {
        "'\(host)' is not a numeric IPv4 or IPv6 address (use e.g. 127.0.0.1, 0.0.0.0, ::1 or ::)"
    }
}
