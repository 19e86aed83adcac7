import COpenSSL

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A private key that signs JSON Web Tokens (RFC 7515, 7518): EC P-256 for ES256 (an APNs `.p8` key)
/// or RSA for RS256 (a Google service account's key), read from PEM (PKCS#8 or the traditional forms).
package final class SigningKey: @unchecked Sendable {
    /// The JWS `alg` this key signs with.
    package enum Algorithm: String, Sendable {
        case es256 = "ES256"
        case rs256 = "RS256"
    }

    package let algorithm: Algorithm
    private let key: PrivateKey

    /// - Throws: ``SigningKeyError`` when the text is no private key, or one of another kind or curve.
    package init(pem: [UInt8]) throws(SigningKeyError) {
        do {
            key = try PrivateKey(pem: pem)
        } catch {
            throw SigningKeyError("not a PEM private key (-----BEGIN PRIVATE KEY-----)")
        }
        switch EVP_PKEY_get_base_id(key.handle) {
        case EVP_PKEY_EC:
            var curve = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(key.handle, &curve, curve.count, &length) == 1,
                ["prime256v1", "P-256"].contains(
                    String(decoding: curve.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            else {
                throw SigningKeyError("an EC key on another curve than P-256, which ES256 needs")
            }
            algorithm = .es256
        case EVP_PKEY_RSA:
            guard EVP_PKEY_get_bits(key.handle) >= 2048 else {
                throw SigningKeyError("an RSA key of \(EVP_PKEY_get_bits(key.handle)) bits; RS256 needs 2048 or more")
            }
            algorithm = .rs256
        default:
            throw SigningKeyError("neither an EC P-256 nor an RSA key")
        }
    }

    /// The signature of `bytes` with SHA-256, in JWS form: for ES256 the 64 bytes r‖s (not DER).
    package func sign(_ bytes: [UInt8]) throws(SigningKeyError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw SigningKeyError("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.handle) == 1,
            EVP_DigestSign(context, nil, &length, bytes, bytes.count) == 1
        else { throw SigningKeyError("signing") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, bytes, bytes.count) == 1 else {
            throw SigningKeyError("signing")
        }
        signature.removeSubrange(length...)
        return algorithm == .es256 ? try Self.rawECDSA(signature) : signature
    }

    /// DER `ECDSA-Sig-Value` → r‖s, each left-padded to 32 bytes (RFC 7518 §3.4).
    private static func rawECDSA(_ der: [UInt8]) throws(SigningKeyError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw SigningKeyError("reading the ECDSA signature") }
        defer { ECDSA_SIG_free(parsed) }
        var raw = [UInt8](repeating: 0, count: 64)
        guard BN_bn2binpad(ECDSA_SIG_get0_r(parsed), &raw, 32) == 32,
            raw.withUnsafeMutableBufferPointer({ BN_bn2binpad(ECDSA_SIG_get0_s(parsed), $0.baseAddress! + 32, 32) })
                == 32
        else { throw SigningKeyError("reading the ECDSA signature") }
        return raw
    }
}

/// Why a key cannot sign.
package struct SigningKeyError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// A signed JSON Web Token in compact form: `base64url(header).base64url(claims).base64url(signature)`.
package enum JSONWebToken {
    private struct Header: Encodable {
        var alg: String
        var kid: String
        var typ = "JWT"
    }

    /// Signs `claims` (encoded as a JSON object, keys sorted) with `key`; the header names the key's
    /// algorithm and `keyID`.
    package static func sign(_ claims: some Encodable, keyID: String, key: SigningKey) throws(SigningKeyError) -> String
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header: Data
        let body: Data
        do {
            header = try encoder.encode(Header(alg: key.algorithm.rawValue, kid: keyID))
            body = try encoder.encode(claims)
        } catch {
            throw SigningKeyError("encoding the token: \(error)")
        }
        let signingInput = base64URL(Array(header)) + "." + base64URL(Array(body))
        return signingInput + "." + base64URL(try key.sign(Array(signingInput.utf8)))
    }

    /// Base64url without padding (RFC 7515 §2).
    package static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}
