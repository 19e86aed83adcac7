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
        let authority = try LocalCertificateAuthority(directory: directory.path + "/tls")
        let (chain, _) = try authority.serverCredentials(names: ["localhost", "127.0.0.1", "::1", "mock.test"])
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
        let first = try LocalCertificateAuthority(directory: directory.path + "/tls")
        let original = try first.serverCredentials(names: ["localhost"])
        let again = try LocalCertificateAuthority(directory: directory.path + "/tls")
        #expect(again.fingerprint == first.fingerprint)
        #expect(try again.serverCredentials(names: ["localhost"]).chainPEM == original.chainPEM)
        let renamed = try again.serverCredentials(names: ["localhost", "new.test"])
        #expect(renamed.chainPEM != original.chainPEM)
        #expect(try Certificate(pem: renamed.chainPEM).isSigned(by: try Certificate(pem: first.certificatePEM)))
    }

    @Test func storesKeysForTheOwnerOnly() throws {
        let directory = TemporaryDirectory()
        let authority = try LocalCertificateAuthority(directory: directory.path + "/tls")
        _ = try authority.serverCredentials(names: ["localhost"])
        for (file, mode) in [("ca-key.pem", 0o600), ("server-key.pem", 0o600), ("ca-cert.pem", 0o644)] {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.path + "/tls/" + file)
            #expect((attributes[.posixPermissions] as? Int) == mode, "\(file)")
        }
    }

    @Test func withoutADirectoryEveryStartMakesANewCA() throws {
        #expect(
            try LocalCertificateAuthority(directory: nil).fingerprint
                != LocalCertificateAuthority(directory: nil).fingerprint)
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
