import CampaignMockCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--tls auto`: a local certificate authority made on first use, and the server certificate it issues.
///
/// Files in `<data-dir>/tls/` (keys readable by the owner only): `ca-key.pem`, `ca-cert.pem`,
/// `server-key.pem`, `server-cert.pem`, `server-sans.txt`. The CA is kept for good, so a device that
/// trusts it keeps trusting the server; the server certificate is issued again when its names change or
/// it has under 30 days left. Without a directory (in-memory runs) everything is made anew each start.
package final class LocalCertificateAuthority {
    /// The CA's common name, as devices show it.
    package static let name = "campaign-mock local CA"
    /// Server certificates last 397 days: Apple platforms refuse server certificates valid for longer than 398.
    static let serverValidityDays = 397
    static let caValidityDays = 3650
    static let renewalDays = 30

    private let certificate: Certificate
    private let key: PrivateKey
    private let directory: String?

    /// Loads the CA from `directory`, or makes one (and stores it there when a directory is given).
    ///
    /// - Throws: ``CertificateError`` when the files cannot be read, written or parsed.
    package init(directory: String?) throws(CertificateError) {
        self.directory = directory
        if let directory, let certificatePEM = Self.read(directory + "/ca-cert.pem"),
            let keyPEM = Self.read(directory + "/ca-key.pem")
        {
            certificate = try Certificate(pem: certificatePEM)
            key = try PrivateKey(pem: keyPEM)
            return
        }
        key = try PrivateKey()
        let host = NetworkInterfaces.hostname()
        certificate = try Certificate(
            commonName: Self.name, organization: "campaign-mock", organizationalUnit: "made on \(host)", key: key,
            issuer: nil, validDays: Self.caValidityDays,
            extensions: [
                ("basicConstraints", "critical,CA:TRUE,pathlen:0"), ("keyUsage", "critical,keyCertSign,cRLSign"),
                ("subjectKeyIdentifier", "hash"),
            ])
        if let directory {
            try Self.makeDirectory(directory)
            try Self.write(key.pem, to: directory + "/ca-key.pem", mode: 0o600)
            try Self.write(certificate.pem, to: directory + "/ca-cert.pem", mode: 0o644)
        }
    }

    /// The CA certificate in PEM.
    package var certificatePEM: [UInt8] { certificate.pem }
    /// The CA certificate in DER.
    package var certificateDER: [UInt8] { certificate.der }
    /// SHA-256 fingerprint of the CA, `AB:CD:…`.
    package var fingerprint: String { certificate.sha256Fingerprint }

    /// The server certificate chain (server, then CA) and key in PEM, for `names` (DNS names and IP
    /// addresses). Reuses the stored one while its names match and it has 30 days or more left.
    package func serverCredentials(names: [String]) throws(CertificateError) -> (chainPEM: [UInt8], keyPEM: [UInt8]) {
        let list = names.joined(separator: "\n")
        if let directory, let stored = Self.read(directory + "/server-cert.pem"),
            let storedKey = Self.read(directory + "/server-key.pem"),
            Self.read(directory + "/server-sans.txt").map({ String(decoding: $0, as: UTF8.self) }) == list,
            let existing = try? Certificate(pem: stored), existing.daysLeft >= Self.renewalDays,
            existing.isSigned(by: certificate)
        {
            return (stored + certificate.pem, storedKey)
        }
        let serverKey = try PrivateKey()
        let alternativeNames = names.map { Self.isIPAddress($0) ? "IP:\($0)" : "DNS:\($0)" }.joined(separator: ",")
        let server = try Certificate(
            commonName: names.first ?? "localhost", organization: "campaign-mock", organizationalUnit: nil,
            key: serverKey, issuer: (certificate, key), validDays: Self.serverValidityDays,
            extensions: [
                ("basicConstraints", "critical,CA:FALSE"), ("keyUsage", "critical,digitalSignature"),
                ("extendedKeyUsage", "serverAuth"), ("subjectAltName", alternativeNames),
                ("subjectKeyIdentifier", "hash"), ("authorityKeyIdentifier", "keyid:always"),
            ])
        if let directory {
            try Self.write(serverKey.pem, to: directory + "/server-key.pem", mode: 0o600)
            try Self.write(server.pem, to: directory + "/server-cert.pem", mode: 0o644)
            try Self.write(Array(list.utf8), to: directory + "/server-sans.txt", mode: 0o644)
        }
        return (server.pem + certificate.pem, serverKey.pem)
    }

    /// The names a server certificate should carry: loopback, the Android emulator's view of the host
    /// (10.0.2.2), this machine's name and addresses, and the extra names asked for.
    package static func defaultNames(extra: [String]) -> [String] {
        var names = ["localhost", "127.0.0.1", "::1", "10.0.2.2", NetworkInterfaces.hostname()]
        names += NetworkInterfaces.nonLoopbackAddresses() + extra
        var seen: Set<String> = []
        return names.filter { !$0.isEmpty && seen.insert($0.lowercased()).inserted }
    }

    static func isIPAddress(_ text: String) -> Bool {
        (try? SocketAddress(parsing: text, port: 0)) != nil && text != "localhost"
    }

    // MARK: - Files

    private static func read(_ path: String) -> [UInt8]? {
        FileBytes.read(path).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Writes through a temporary file and a rename, so a crash never leaves half a key.
    private static func write(_ bytes: [UInt8], to path: String, mode: mode_t) throws(CertificateError) {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw CertificateError("writing \(path)", reason: String(cString: strerror(errno)))
        }
        _ = fchmod(descriptor, mode)
        let written = bytes.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
        syncToDisk(descriptor)
        close(descriptor)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            throw CertificateError("writing \(path)", reason: String(cString: strerror(errno)))
        }
    }

    private static func makeDirectory(_ path: String) throws(CertificateError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw CertificateError("creating \(path)", reason: String(cString: strerror(errno)))
        }
    }
}

#if canImport(Glibc)
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    private let systemWrite = Darwin.write
#endif

@available(*, unavailable)
extension LocalCertificateAuthority: Sendable {}
