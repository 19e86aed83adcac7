import COpenSSL
import CampaignMockSystem

/// An EC P-256 private key (OpenSSL `EVP_PKEY`).
final class PrivateKey {
    let handle: OpaquePointer

    /// A new P-256 key: accepted by iOS and Android for server certificates, and fast.
    init() throws(CertificateError) {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw CertificateError("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) == 1,
            EVP_PKEY_keygen(context, &key) == 1, let key
        else { throw CertificateError("generating a P-256 key") }
        handle = key
    }

    init(pem: [UInt8]) throws(CertificateError) {
        let bio = try Self.bio(pem)
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { throw CertificateError("reading a PEM key") }
        handle = key
    }

    deinit {
        EVP_PKEY_free(handle)
    }

    var pem: [UInt8] {
        Self.write { PEM_write_bio_PrivateKey($0, handle, nil, nil, 0, nil, nil) }
    }

    static func bio(_ bytes: [UInt8]) throws(CertificateError) -> OpaquePointer {
        guard let bio = BIO_new(BIO_s_mem()),
            bytes.withUnsafeBytes({ BIO_write(bio, $0.baseAddress, Int32($0.count)) }) == bytes.count
        else { throw CertificateError("buffering PEM") }
        return bio
    }

    /// Runs a PEM writer into a memory buffer and returns the bytes.
    static func write(_ writer: (OpaquePointer) -> Int32) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { return [] }
        defer { BIO_free(bio) }
        guard writer(bio) == 1 else { return [] }
        let count = Int(BIO_ctrl_pending(bio))
        var bytes = [UInt8](repeating: 0, count: count)
        _ = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(count)) }
        return bytes
    }
}

/// An X.509 certificate (OpenSSL `X509`).
final class Certificate {
    let handle: OpaquePointer

    init(pem: [UInt8]) throws(CertificateError) {
        let bio = try PrivateKey.bio(pem)
        defer { BIO_free(bio) }
        guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
            throw CertificateError("reading a PEM certificate")
        }
        handle = certificate
    }

    /// Issues a version 3 certificate for `key`'s public half, signed by `issuer` (self-signed when nil).
    ///
    /// - Parameter extensions: (OpenSSL extension name, value) in `openssl x509 -extfile` syntax.
    init(
        commonName: String, organization: String, organizationalUnit: String?, key: PrivateKey,
        issuer: (certificate: Certificate, key: PrivateKey)?, validDays: Int, extensions: [(String, String)]
    ) throws(CertificateError) {
        guard let certificate = X509_new() else { throw CertificateError("X509_new") }
        handle = certificate
        guard X509_set_version(certificate, 2) == 1 else { throw CertificateError("setting the version") }
        try Self.setRandomSerial(certificate)
        // An hour back, so a phone whose clock is slightly behind still accepts it.
        guard X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) != nil,
            X509_gmtime_adj(X509_getm_notAfter(certificate), validDays * 86_400) != nil
        else { throw CertificateError("setting the validity") }
        guard X509_set_pubkey(certificate, key.handle) == 1 else { throw CertificateError("setting the key") }
        guard let name = X509_NAME_new() else { throw CertificateError("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        var entries = [("O", organization), ("CN", commonName)]
        if let organizationalUnit { entries.insert(("OU", organizationalUnit), at: 1) }
        for (field, value) in entries {
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, value, -1, -1, 0) == 1 else {
                throw CertificateError("setting \(field)")
            }
        }
        guard X509_set_subject_name(certificate, name) == 1,
            X509_set_issuer_name(certificate, issuer.map { X509_get_subject_name($0.certificate.handle) } ?? name) == 1
        else { throw CertificateError("setting the names") }
        var context = X509V3_CTX()
        COpenSSL_X509V3_set_ctx_nodb(&context)
        X509V3_set_ctx(&context, issuer?.certificate.handle ?? certificate, certificate, nil, nil, 0)
        for (extensionName, value) in extensions {
            guard let created = X509V3_EXT_conf_nid(nil, &context, OBJ_sn2nid(extensionName), value) else {
                throw CertificateError("making the \(extensionName) extension")
            }
            defer { X509_EXTENSION_free(created) }
            guard X509_add_ext(certificate, created, -1) == 1 else { throw CertificateError("adding \(extensionName)") }
        }
        guard X509_sign(certificate, (issuer?.key ?? key).handle, EVP_sha256()) > 0 else {
            throw CertificateError("signing")
        }
    }

    deinit {
        X509_free(handle)
    }

    var pem: [UInt8] {
        PrivateKey.write { PEM_write_bio_X509($0, handle) }
    }

    var der: [UInt8] {
        var buffer: UnsafeMutablePointer<UInt8>?
        let count = i2d_X509(handle, &buffer)
        guard count > 0, let buffer else { return [] }
        defer { COpenSSL_OPENSSL_free(buffer) }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(count)))
    }

    /// SHA-256 of the DER form, as `AB:CD:…` (what browsers, Keychain Access and openssl show).
    var sha256Fingerprint: String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(handle, EVP_sha256(), &digest, &length) == 1 else { return "" }
        return digest.prefix(Int(length)).map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return text.count == 1 ? "0" + text : text
        }.joined(separator: ":")
    }

    /// Whole days until the certificate expires (negative once expired).
    var daysLeft: Int {
        var days: Int32 = 0
        var seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, nil, X509_get0_notAfter(handle)) == 1 else { return -1 }
        return Int(days)
    }

    /// Whether `key` is the private half of this certificate's public key.
    func matches(_ key: PrivateKey) -> Bool {
        X509_check_private_key(handle, key.handle) == 1
    }

    /// Whether `issuer`'s key signed this certificate.
    func isSigned(by issuer: Certificate) -> Bool {
        guard let key = X509_get0_pubkey(issuer.handle) else { return false }
        return X509_verify(handle, key) == 1
    }

    private static func setRandomSerial(_ certificate: OpaquePointer) throws(CertificateError) {
        // RFC 5280 §4.1.2.2: positive, at most 20 bytes; 159 random bits keep it positive.
        guard let number = BN_new() else { throw CertificateError("BN_new") }
        defer { BN_free(number) }
        guard BN_rand(number, 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1,
            BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil
        else { throw CertificateError("setting the serial number") }
    }
}

/// Why a certificate or key could not be made, read or stored.
package struct CertificateError: Error, Equatable, CustomStringConvertible {
    package let message: String

    package init(_ operation: String, reason: String? = nil) {
        let detail = reason ?? TLSError.drainErrorQueue()
        message = detail.isEmpty ? "\(operation) failed" : "\(operation) failed: \(detail)"
    }

    package var description: String { message }
}
