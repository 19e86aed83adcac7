import CampaignMockSystem
import CampaignMockTestSupport
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockModel
@testable import CampaignMockSupport

@Suite("local certificate authority")
struct LocalCertificateAuthorityTests {
    private func text(_ pem: [UInt8], directory: TemporaryDirectory) throws -> String {
        let path = directory.path + "/\(UUID().uuidString).pem"
        try Data(pem).write(to: URL(fileURLWithPath: path))
        return try runProcess(opensslTool, ["x509", "-in", path, "-noout", "-text"]).output
    }

    @Test func makesACAAndAServerCertificateDevicesAccept() throws {
        let directory = TemporaryDirectory()
        let authority = try LocalCertificateAuthority(folder: directory.path + "/ca")
        let (chain, _) = try authority.serverCredentials(
            names: ["localhost", "127.0.0.1", "::1", "mock.test"], directory: directory.path + "/tls")
        let server = try Certificate(pem: chain)
        let ca = try Certificate(pem: authority.certificatePEM)
        #expect(server.isSigned(by: ca))
        #expect((395...397).contains(server.daysLeft), "Apple platforms refuse server certificates over 398 days")
        #expect(ca.daysLeft > 3000)

        let serverText = try text(server.pem, directory: directory)
        #expect(serverText.contains("TLS Web Server Authentication"))
        #expect(serverText.contains("DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:mock.test"))
        #expect(serverText.contains("CA:FALSE"))
        #expect(serverText.contains("ASN1 OID: prime256v1"))
        let caText = try text(ca.pem, directory: directory)
        #expect(caText.contains("CA:TRUE, pathlen:0"))
        #expect(caText.contains("Certificate Sign, CRL Sign"))
        #expect(caText.contains("CN = campaign-mock local CA"))
    }

    @Test func keepsTheCAAndReissuesTheServerCertificateOnlyWhenNamesChange() throws {
        let directory = TemporaryDirectory()
        let server = directory.path + "/data/tls"
        let first = try LocalCertificateAuthority(folder: directory.path + "/ca")
        #expect(first.origin == .made)
        let original = try first.serverCredentials(names: ["localhost"], directory: server)
        let again = try LocalCertificateAuthority(folder: directory.path + "/ca")
        #expect(again.origin == .found)
        #expect(again.fingerprint == first.fingerprint)
        #expect(try again.serverCredentials(names: ["localhost"], directory: server).chainPEM == original.chainPEM)
        let renamed = try again.serverCredentials(names: ["localhost", "new.test"], directory: server)
        #expect(renamed.chainPEM != original.chainPEM)
        #expect(try Certificate(pem: renamed.chainPEM).isSigned(by: try Certificate(pem: first.certificatePEM)))
    }

    @Test func storesKeysForTheOwnerOnly() throws {
        let directory = TemporaryDirectory()
        let authority = try LocalCertificateAuthority(folder: directory.path + "/user/share/ca")
        _ = try authority.serverCredentials(names: ["localhost"], directory: directory.path + "/data/tls")
        for (file, mode) in [
            ("user/share/ca/ca-key.pem", 0o600), ("data/tls/server-key.pem", 0o600),
            ("user/share/ca/ca-cert.pem", 0o644),
            ("user/share/ca", 0o700),
        ] {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.path + "/" + file)
            #expect((attributes[.posixPermissions] as? Int) == mode, "\(file)")
        }
    }

    /// One CA for two data directories: each has its own server certificate, both signed by it.
    @Test func twoDataDirectoriesShareOneCA() throws {
        let directory = TemporaryDirectory()
        let one = try LocalCertificateAuthority(folder: directory.path + "/ca")
        let first = try one.serverCredentials(names: ["localhost"], directory: directory.path + "/one/tls")
        let other = try LocalCertificateAuthority(folder: directory.path + "/ca")
        let second = try other.serverCredentials(names: ["localhost"], directory: directory.path + "/two/tls")
        #expect(one.fingerprint == other.fingerprint)
        #expect(first.keyPEM != second.keyPEM)
        let ca = try Certificate(pem: one.certificatePEM)
        #expect(try Certificate(pem: first.chainPEM).isSigned(by: ca))
        #expect(try Certificate(pem: second.chainPEM).isSigned(by: ca))
    }

    @Test func aSuppliedCAIsUsedAsItIsAndHalfOfOneIsRefused() throws {
        let directory = TemporaryDirectory()
        let made = try LocalCertificateAuthority(folder: directory.path + "/made")
        let supplied = directory.path + "/supplied"
        try FileManager.default.createDirectory(atPath: supplied, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: directory.path + "/made/ca-cert.pem", toPath: supplied + "/ca-cert.pem")
        #expect {
            try LocalCertificateAuthority(folder: supplied)
        } throws: { error in
            "\(error)".contains("ca-cert.pem is there without ca-key.pem")
                && "\(error)".contains("CAMPAIGN_MOCK_CAROOT")
        }
        #expect(FileManager.default.contents(atPath: supplied + "/ca-key.pem") == nil, "nothing made beside it")

        // Someone else's key beside the certificate is refused too.
        let stranger = try LocalCertificateAuthority(folder: directory.path + "/stranger")
        try FileManager.default.copyItem(
            atPath: directory.path + "/stranger/ca-key.pem", toPath: supplied + "/ca-key.pem")
        #expect {
            try LocalCertificateAuthority(folder: supplied)
        } throws: { "\($0)".contains("ca-key.pem is not the key of ca-cert.pem") }
        #expect(stranger.fingerprint != made.fingerprint)

        try FileManager.default.removeItem(atPath: supplied + "/ca-key.pem")
        try FileManager.default.copyItem(atPath: directory.path + "/made/ca-key.pem", toPath: supplied + "/ca-key.pem")
        let before = try Data(contentsOf: URL(fileURLWithPath: supplied + "/ca-cert.pem"))
        let used = try LocalCertificateAuthority(folder: supplied)
        #expect(used.origin == .found && used.fingerprint == made.fingerprint)
        #expect(try Data(contentsOf: URL(fileURLWithPath: supplied + "/ca-cert.pem")) == before)
    }

    /// A data directory of an older version, with the CA in its `tls/`: moved into an empty CA folder;
    /// kept where it is when the folder already holds another.
    @Test func aCAOfAnOlderVersionMovesIntoAnEmptyFolderOnly() throws {
        let directory = TemporaryDirectory()
        let older = try LocalCertificateAuthority(folder: directory.path + "/one/tls")
        let moved = try LocalCertificateAuthority(
            folder: directory.path + "/ca", olderFolder: directory.path + "/one/tls")
        #expect(moved.origin == .moved(from: directory.path + "/one/tls"))
        #expect(moved.fingerprint == older.fingerprint && moved.folder == directory.path + "/ca")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/one/tls/ca-key.pem"))
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/one/tls/ca-cert.pem"))
        #expect(try LocalCertificateAuthority(folder: directory.path + "/ca").fingerprint == older.fingerprint)

        let another = try LocalCertificateAuthority(folder: directory.path + "/two/tls")
        let kept = try LocalCertificateAuthority(
            folder: directory.path + "/ca", olderFolder: directory.path + "/two/tls")
        #expect(kept.origin == .dataDirectory(perUser: directory.path + "/ca"))
        #expect(kept.fingerprint == another.fingerprint && kept.folder == directory.path + "/two/tls")
        #expect(try LocalCertificateAuthority(folder: directory.path + "/ca").fingerprint == older.fingerprint)
    }

    @Test func theFolderComesFromTheVariableElseTheUsersDataFolder() {
        #expect(
            CertificateAuthorityFolder.path(environment: ["CAMPAIGN_MOCK_CAROOT": "/ci/ca", "HOME": "/home/u"])
                == "/ci/ca")
        #expect(CertificateAuthorityFolder.path(environment: [:]) == nil)
        #if os(macOS)
            #expect(
                CertificateAuthorityFolder.path(environment: ["HOME": "/Users/u", "CAMPAIGN_MOCK_CAROOT": ""])
                    == "/Users/u/Library/Application Support/campaign-mock/ca")
        #else
            #expect(
                CertificateAuthorityFolder.path(environment: ["HOME": "/home/u", "CAMPAIGN_MOCK_CAROOT": ""])
                    == "/home/u/.local/share/campaign-mock/ca")
            #expect(
                CertificateAuthorityFolder.path(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/data"])
                    == "/data/campaign-mock/ca")
        #endif
    }

    @Test func namesTheEmulatorHostAndThisMachine() {
        let names = LocalCertificateAuthority.defaultNames(extra: ["extra.test", "localhost"])
        #expect(names.starts(with: ["localhost", "127.0.0.1", "::1", "10.0.2.2"]))
        #expect(names.contains("extra.test"))
        #expect(names.filter { $0 == "localhost" }.count == 1)
    }
}

@Suite struct TLSConfigurationTests {
    @Test(arguments: [
        (["tlsCert": "c.pem"], "--tls-cert and --tls-key go together"),
        (["tls": "off", "tlsCert": "c.pem", "tlsKey": "k.pem"], "--tls off contradicts --tls-cert and --tls-key"),
        (["noHttp": "true"], "--no-http needs HTTPS: add --tls auto, or --tls-cert and --tls-key"),
        (["tls": "auto", "port": "9000", "tlsPort": "9000"], "--port and --tls-port must differ"),
        (["tls": "sometimes"], "--tls: 'sometimes' is not a valid TLS mode (auto or off)"),
        (["tlsSans": "bad name"], "--tls-san: 'bad name' is not a DNS name or an IP address"),
    ])
    func refusesContradictions(_ flags: [String: String], _ message: String) {
        #expect(throws: ConfigurationError(message)) {
            try Configuration.resolve(flags: flags, environment: [:], configFile: nil)
        }
    }

    @Test func readsTheModes() throws {
        #expect(try Configuration.resolve(flags: [:], environment: [:], configFile: nil).tlsMode == .off)
        #expect(try Configuration.resolve(flags: ["tls": "auto"], environment: [:], configFile: nil).tlsMode == .auto)
        let files = try Configuration.resolve(
            flags: ["tlsCert": "c.pem", "tlsKey": "k.pem"], environment: [:], configFile: nil)
        #expect(files.tlsMode == .files(certificate: "c.pem", key: "k.pem"))
        let names = try Configuration.resolve(flags: ["tlsSans": "a.test\n10.1.2.3"], environment: [:], configFile: nil)
        #expect(names.tlsNames == ["a.test", "10.1.2.3"])
    }
}
