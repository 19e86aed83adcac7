#if canImport(Glibc)
    import CLinux
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The machine's network addresses (for certificate SANs: an emulator or phone reaches the mock by them).
package enum NetworkInterfaces {
    /// Every IPv4 and IPv6 address of an interface that is up, loopback and link-local (fe80::) excluded.
    package static func nonLoopbackAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let raw = entry.pointee.ifa_addr, entry.pointee.ifa_flags & UInt32(IFF_UP) != 0 else { continue }
            var storage = sockaddr_storage()
            let size =
                raw.pointee.sa_family == sa_family_t(AF_INET6)
                ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
            guard raw.pointee.sa_family == sa_family_t(AF_INET) || raw.pointee.sa_family == sa_family_t(AF_INET6) else {
                continue
            }
            withUnsafeMutableBytes(of: &storage) {
                $0.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: size))
            }
            guard let address = SocketAddress(storage: storage), !address.isLoopback,
                !address.host.lowercased().hasPrefix("fe80:")
            else { continue }
            if !addresses.contains(address.host) { addresses.append(address.host) }
        }
        return addresses
    }

    /// The machine's host name.
    package static func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
