import CampaignMockHTTP
import CampaignMockSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--tls auto`: a local certificate authority, one per user (as mkcert's CAROOT), and the server
/// certificates it issues, one per data directory.
///
/// The CA is `ca-cert.pem` and `ca-key.pem` (readable by its owner only) in its folder
/// (``CertificateAuthorityFolder``), made there on first use (under the lock `ca.lock`, so that servers
/// starting together make one) and kept for good, so a device that trusts it keeps trusting every server
/// of this user. A CA put there by the user is used as it is and never written over. The server certificate (`server-key.pem`, `server-cert.pem`, `server-sans.txt` in
/// `<data-dir>/tls/`) is issued again when its names change, its CA changes or it has under 30 days left;
/// without a directory (in-memory runs) it is made anew each start.
///
/// Older versions kept the CA in `<data-dir>/tls/` itself. Such a CA is moved into the CA folder when that
/// holds none, so the devices that trust it keep working and every project shares it; when the folder
/// already holds another CA, the data directory keeps its own (``Origin/dataDirectory``).
package final class LocalCertificateAuthority {
    /// The CA's common name, as devices show it.
    package static let name = "campaign-mock local CA"
    /// Server certificates last 397 days: Apple platforms refuse server certificates valid for longer than 398.
    static let serverValidityDays = 397
    static let caValidityDays = 3650
    static let renewalDays = 30

    /// Where the CA in use came from.
    package enum Origin: Sendable, Equatable {
        /// Found in its folder.
        case found
        /// Made now, in its folder.
        case made
        /// Moved into its folder from the data directory `from` (`<data-dir>/tls`), where older versions kept it.
        case moved(from: String)
        /// Kept in the data directory's `tls/` as older versions did, because the per-user folder `perUser`
        /// holds another CA.
        case dataDirectory(perUser: String)
    }

    private let certificate: Certificate
    private let key: PrivateKey
    /// The folder of the CA in use.
    package let folder: String
    package let origin: Origin

    /// Loads the CA from `folder`, or makes it there; first moves in a CA an older version left in
    /// `olderFolder` (`<data-dir>/tls`), when there is one.
    ///
    /// - Throws: ``CertificateError`` when the files cannot be read, written or parsed, or when a folder
    ///   holds half a CA (a certificate without its key, or a key that is not the certificate's).
    package init(folder: String, olderFolder: String? = nil) throws(CertificateError) {
        var older: (certificate: Certificate, key: PrivateKey)?
        if let olderFolder, olderFolder != folder { older = try Self.load(olderFolder) }
        var origin = Origin.found
        // Another server may be writing the CA at this moment (its key already there, its certificate not
        // yet): only the load under the lock below may call a folder half a CA.
        var found = try? Self.load(folder)
        if found == nil {
            // Made (or moved in) under a lock, so that servers starting together end with one CA.
            try Self.makeDirectories(folder)
            let lock = try Self.lock(folder)
            defer { close(lock) }
            found = try Self.load(folder)
            if found == nil {
                if let older, let olderFolder {
                    found = older
                    origin = .moved(from: olderFolder)
                } else {
                    found = try Self.make()
                    origin = .made
                }
                if let found { try Self.store(found, in: folder) }
            }
        }
        guard let authority = found else { throw CertificateError("loading the CA in \(folder)") }
        if case .moved(let from) = origin {
            for file in Self.files { _ = unlink(from + "/" + file) }
        }
        if let older, let olderFolder, origin == .found, older.certificate.der != authority.certificate.der {
            certificate = older.certificate
            key = older.key
            self.folder = olderFolder
            self.origin = .dataDirectory(perUser: folder)
            return
        }
        certificate = authority.certificate
        key = authority.key
        self.folder = folder
        self.origin = origin
    }

    /// A new CA, valid for 10 years.
    private static func make() throws(CertificateError) -> (certificate: Certificate, key: PrivateKey) {
        let key = try PrivateKey()
        let host = NetworkInterfaces.hostname()
        let certificate = try Certificate(
            commonName: Self.name, organization: "campaign-mock", organizationalUnit: "made on \(host)", key: key,
            issuer: nil, validDays: Self.caValidityDays,
            extensions: [
                ("basicConstraints", "critical,CA:TRUE,pathlen:0"), ("keyUsage", "critical,keyCertSign,cRLSign"),
                ("subjectKeyIdentifier", "hash"),
            ])
        return (certificate, key)
    }

    /// Takes the lock file of `folder` (`ca.lock`), held until the descriptor returned is closed.
    private static func lock(_ folder: String) throws(CertificateError) -> Int32 {
        let descriptor = open(folder + "/ca.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CertificateError("locking \(folder)/ca.lock", reason: String(cString: strerror(errno)))
        }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw CertificateError("locking \(folder)/ca.lock", reason: reason)
            }
        }
        return descriptor
    }

    /// The CA's files in its folder.
    private static let files = ["ca-cert.pem", "ca-key.pem"]

    /// The CA in `folder`; nil when it holds neither file.
    private static func load(_ folder: String) throws(CertificateError) -> (certificate: Certificate, key: PrivateKey)?
    {
        switch (read(folder + "/ca-cert.pem"), read(folder + "/ca-key.pem")) {
        case (nil, nil):
            return nil
        case (_?, nil):
            throw CertificateError(
                "loading the CA in \(folder)",
                reason: "ca-cert.pem is there without ca-key.pem: the server signs its certificate with the CA's key, "
                    + "so a CA supplied through \(CertificateAuthorityFolder.variable) needs both files (the key "
                    + "from a CI secret, say); or name an empty folder to have a CA made there")
        case (nil, _?):
            throw CertificateError(
                "loading the CA in \(folder)", reason: "ca-key.pem is there without ca-cert.pem: put both files there")
        case (let certificatePEM?, let keyPEM?):
            let certificate = try Certificate(pem: certificatePEM)
            let key = try PrivateKey(pem: keyPEM)
            guard certificate.matches(key) else {
                throw CertificateError(
                    "loading the CA in \(folder)", reason: "ca-key.pem is not the key of ca-cert.pem")
            }
            return (certificate, key)
        }
    }

    /// Writes the CA into `folder`, made with its parents when missing.
    private static func store(_ authority: (certificate: Certificate, key: PrivateKey), in folder: String)
        throws(CertificateError)
    {
        try makeDirectories(folder)
        try write(authority.key.pem, to: folder + "/ca-key.pem", mode: 0o600)
        try write(authority.certificate.pem, to: folder + "/ca-cert.pem", mode: 0o644)
    }

    /// The CA certificate in PEM.
    package var certificatePEM: [UInt8] { certificate.pem }
    /// The CA certificate in DER.
    package var certificateDER: [UInt8] { certificate.der }
    /// SHA-256 fingerprint of the CA, `AB:CD:…`.
    package var fingerprint: String { certificate.sha256Fingerprint }

    /// The server certificate chain (server, then CA) and key in PEM, for `names` (DNS names and IP
    /// addresses), kept in `directory` (`<data-dir>/tls`; nil: made anew). Reuses the stored one while its
    /// names match, this CA signed it and it has 30 days or more left.
    package func serverCredentials(names: [String], directory: String?) throws(CertificateError) -> (
        chainPEM: [UInt8], keyPEM: [UInt8]
    ) {
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
            try Self.makeDirectories(directory)
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

    /// Makes `path`, readable by the owner only, and its missing parents.
    private static func makeDirectories(_ path: String) throws(CertificateError) {
        if let failure = FileBytes.makeDirectories(path, mode: 0o700) {
            throw CertificateError("creating \(path)", reason: failure)
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
