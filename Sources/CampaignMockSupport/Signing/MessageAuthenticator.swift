import COpenSSL

/// HMAC-SHA-256 (RFC 2104) under a random key of its own: a tag that shows a text was made by this
/// process, so what it hands out (a session token, say) can be checked later without being kept.
package struct MessageAuthenticator: Sendable {
    private let key: [UInt8]

    package init() {
        key = RandomText.bytes(32)
    }

    /// The 32-byte tag of `bytes`.
    package func tag(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let message = Array(bytes)
        var tag = [UInt8](repeating: 0, count: 32)
        var length = 0
        let made = EVP_Q_mac(
            nil, "HMAC", nil, "SHA256", nil, key, key.count, message, message.count, &tag, tag.count, &length)
        precondition(made != nil && length == tag.count, "HMAC-SHA-256 is available in every OpenSSL 3")
        return tag
    }
}
