#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Random identifiers from the system generator.
package enum RandomText {
    static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// A random version-4 UUID, uppercase, as Campaign writes them.
    package static func uuid() -> String {
        var bytes = bytes(16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String($0, radix: 16, uppercase: true).leftPadded(2) }.joined()
        let text = Array(hex)
        return [text[0..<8], text[8..<12], text[12..<16], text[16..<20], text[20..<32]].map { String($0) }
            .joined(separator: "-")
    }

    package static func base64(bytes count: Int) -> String {
        Base64.encode(bytes(count))
    }
}
