import CampaignMockHTTP
import CampaignMockSystem

#if canImport(Glibc)
    import CLinux
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A socket address as the kernel reads and writes it (`sockaddr_in`, `sockaddr_in6`), for the socket calls.
extension SocketAddress {
    /// Calls `body` with this address as a `sockaddr`.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemCallError) -> R)
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
    init?(storage: sockaddr_storage) {
        switch Int32(storage.ss_family) {
        case AF_INET:
            let value = Self.read(storage, as: sockaddr_in.self)
            self.init(
                host: Self.text(AF_INET, value.sin_addr, length: INET_ADDRSTRLEN),
                port: UInt16(bigEndian: value.sin_port), family: .ipv4)
        case AF_INET6:
            let value = Self.read(storage, as: sockaddr_in6.self)
            self.init(
                host: Self.text(AF_INET6, value.sin6_addr, length: INET6_ADDRSTRLEN),
                port: UInt16(bigEndian: value.sin6_port), family: .ipv6)
        default:
            return nil
        }
    }

    /// The address in `storage` as the `sockaddr_in` or `sockaddr_in6` its family says it holds.
    private static func read<Address>(_ storage: sockaddr_storage, as type: Address.Type) -> Address {
        var copy = storage
        return withUnsafePointer(to: &copy) { $0.withMemoryRebound(to: type, capacity: 1) { $0.pointee } }
    }

    /// `address`, an `in_addr` or `in6_addr` of `family`, as `inet_ntop` writes it in at most `length` bytes.
    private static func text<Address>(_ family: Int32, _ address: Address, length: Int32) -> String {
        var text = [CChar](repeating: 0, count: Int(length))
        withUnsafeBytes(of: address) { _ = inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
