import COpenSSL
package import CampaignMockSystem

/// Server-side TLS settings shared by every connection of a listener: the certificate chain and key,
/// TLS 1.2 and 1.3 only, OpenSSL's default (modern) ciphers, ALPN `http/1.1`.
///
/// An `SSL_CTX` may be used from many threads once configured, and it is not changed after `init`.
package final class TLSContext: @unchecked Sendable, Equatable {
    let handle: OpaquePointer

    /// - Parameters:
    ///   - certificateChainPEM: the server certificate, then any intermediates, in PEM.
    ///   - privateKeyPEM: the server key in PEM.
    /// - Throws: ``TLSError`` when the PEM cannot be read or the key does not match the certificate.
    package init(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8]) throws(TLSError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TLSError("SSL_CTX_new") }
        handle = context
        guard COpenSSL_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1,
            COpenSSL_SSL_CTX_set_max_proto_version(context, TLS1_3_VERSION) == 1
        else { throw TLSError("setting TLS 1.2-1.3") }
        COpenSSL_SSL_CTX_set_server_options(context)
        _ = COpenSSL_SSL_CTX_set_mode(context, Int(SSL_MODE_RELEASE_BUFFERS))
        COpenSSL_SSL_CTX_use_http11_alpn(context)
        try Self.useChain(certificateChainPEM, in: context)
        try Self.useKey(privateKeyPEM, in: context)
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw TLSError("checking the key", reason: "the private key does not match the certificate")
        }
    }

    deinit {
        SSL_CTX_free(handle)
    }

    package static func == (lhs: TLSContext, rhs: TLSContext) -> Bool { lhs === rhs }

    private static func useChain(_ pem: [UInt8], in context: OpaquePointer) throws(TLSError) {
        guard let bio = memoryBIO(pem) else { throw TLSError("reading the certificate") }
        defer { BIO_free(bio) }
        guard let leaf = PEM_read_bio_X509(bio, nil, nil, nil) else {
            throw TLSError("reading the certificate", reason: "no PEM certificate found")
        }
        defer { X509_free(leaf) }
        guard SSL_CTX_use_certificate(context, leaf) == 1 else { throw TLSError("using the certificate") }
        while let extra = PEM_read_bio_X509(bio, nil, nil, nil) {
            // SSL_CTX_add_extra_chain_cert takes ownership; it is a macro over SSL_CTX_ctrl.
            guard SSL_CTX_ctrl(context, SSL_CTRL_EXTRA_CHAIN_CERT, 0, UnsafeMutableRawPointer(extra)) == 1 else {
                X509_free(extra)
                throw TLSError("adding an intermediate certificate")
            }
        }
        ERR_clear_error()  // the loop ends on a "no start line" error
    }

    private static func useKey(_ pem: [UInt8], in context: OpaquePointer) throws(TLSError) {
        guard let bio = memoryBIO(pem) else { throw TLSError("reading the key") }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
            throw TLSError("reading the key", reason: "no PEM private key found")
        }
        defer { EVP_PKEY_free(key) }
        guard SSL_CTX_use_PrivateKey(context, key) == 1 else { throw TLSError("using the key") }
    }

    /// A memory BIO holding a copy of `bytes`.
    static func memoryBIO(_ bytes: [UInt8]) -> OpaquePointer? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        let written = bytes.withUnsafeBytes { BIO_write(bio, $0.baseAddress, Int32($0.count)) }
        guard written == bytes.count else {
            BIO_free(bio)
            return nil
        }
        return bio
    }
}
