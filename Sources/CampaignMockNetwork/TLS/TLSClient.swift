import COpenSSL
package import CampaignMockSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a client connection trusts: the system's CA store, and optionally more CAs from a PEM file
/// (a local CA, a company proxy). Peers are verified, host names checked. Immutable after `init`.
package final class TLSClientContext: @unchecked Sendable {
    let handle: OpaquePointer

    /// - Parameter extraCAFile: a PEM file of more certificates to trust.
    /// - Throws: ``TLSError`` when the context or the CA file cannot be set up.
    package init(extraCAFile: String? = nil) throws(TLSError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw TLSError("SSL_CTX_new") }
        handle = context
        guard COpenSSL_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw TLSError("setting the TLS versions")
        }
        COpenSSL_SSL_CTX_set_client_options(context)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        _ = SSL_CTX_set_default_verify_paths(context)
        // OpenSSL's default is the folder of the machine it was built for (for a release binary, linked
        // statically, the build machine's); the system's own bundle is read too. `SSL_CERT_FILE` wins.
        if getenv("SSL_CERT_FILE") == nil, let bundle = Self.systemBundles.first(where: { access($0, R_OK) == 0 }) {
            _ = SSL_CTX_load_verify_locations(context, bundle, nil)
        }
        if let extraCAFile, SSL_CTX_load_verify_locations(context, extraCAFile, nil) != 1 {
            throw TLSError("reading the CA file \(extraCAFile)")
        }
    }

    deinit {
        SSL_CTX_free(handle)
    }

    /// Where systems keep the bundle of CAs they trust: Debian and Ubuntu (and Alpine), Fedora and RHEL,
    /// macOS (its copy of the system roots; the Keychain's added CAs are not in it: `--upstream-ca`).
    static let systemBundles = [
        "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem",
    ]
}

/// A blocking TLS client connection over a connected socket (with its send/receive timeouts).
package final class TLSClientStream {
    private let ssl: OpaquePointer

    /// The application protocol the server chose by ALPN (`h2`), if any.
    package private(set) var negotiatedProtocol: String?

    /// Shakes hands with `host`, verifying its certificate chain and name.
    ///
    /// - Parameter protocols: the application protocols to offer by ALPN (`["h2"]`); none when empty.
    /// - Throws: ``TLSError`` with OpenSSL's reason (an untrusted certificate, a wrong name, …).
    package init(socket: Socket, host: String, context: TLSClientContext, protocols: [String] = []) throws(TLSError) {
        guard let ssl = SSL_new(context.handle) else { throw TLSError("SSL_new") }
        self.ssl = ssl
        if !protocols.isEmpty {
            // The wire form: each name preceded by its length.
            let offer = protocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
            guard SSL_set_alpn_protos(ssl, offer, UInt32(offer.count)) == 0 else { throw TLSError("offering ALPN") }
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let isAddress = bare.contains(":") || bare.allSatisfy { $0.isNumber || $0 == "." }
        if !isAddress { _ = COpenSSL_SSL_set_tlsext_host_name(ssl, bare) }
        let verifyParameters = SSL_get0_param(ssl)
        let named =
            isAddress ? X509_VERIFY_PARAM_set1_ip_asc(verifyParameters, bare) : SSL_set1_host(ssl, bare)
        guard named == 1, SSL_set_fd(ssl, socket.descriptor) == 1 else { throw TLSError("setting up the connection") }
        guard SSL_connect(ssl) == 1 else {
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                throw TLSError(
                    "verifying the certificate of \(bare)",
                    reason: String(cString: X509_verify_cert_error_string(verify)))
            }
            throw TLSError("the TLS handshake with \(bare)")
        }
        var selected: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &selected, &length)
        if let selected, length > 0 {
            negotiatedProtocol = String(
                decoding: UnsafeBufferPointer(start: selected, count: Int(length)), as: UTF8.self)
        }
    }

    deinit {
        SSL_free(ssl)
    }

    package func writeAll(_ bytes: [UInt8]) throws(TLSError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, Int32($0.count - offset)) }
            guard written > 0 else { throw TLSError("sending over TLS") }
            offset += Int(written)
        }
    }

    /// Reads into `buffer`; 0 at the end of the stream (close_notify or a closed socket).
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> Int {
        let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if count > 0 { return Int(count) }
        let error = SSL_get_error(ssl, count)
        if error == SSL_ERROR_ZERO_RETURN || error == SSL_ERROR_SYSCALL { return 0 }
        throw TLSError("reading over TLS")
    }

    /// Sends close_notify.
    package func close() {
        _ = SSL_shutdown(ssl)
    }
}
