import CampaignMockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `serve --tls auto` process with its HTTPS port and exported CA file.
private final class TLSServer {
    let directory = TemporaryDirectory()
    let process: ChildProcess
    let httpsPort: UInt16
    let banner: String
    var caFile: String { directory.path + "/ca.pem" }
    var dataDirectory: String { directory.path + "/.campaign-mock" }

    init(
        _ extra: [String] = [], directory given: TemporaryDirectory? = nil, environment: [String: String] = [:]
    ) throws {
        let directory = given ?? self.directory
        process = try ChildProcess(
            binary, ["serve", "--port", "0", "--tls", "auto", "--tls-port", "0", "--host", "::"] + extra,
            workingDirectory: directory.path, environment: environment)
        guard let banner = process.waitForOutput(containing: "Stop with Ctrl-C") else {
            throw RawClientError("no banner: \(process.standardError)")
        }
        self.banner = banner
        guard let range = banner.range(of: #"https://[^ \n]*:(\d+)"#, options: .regularExpression),
            let port = UInt16(banner[range].split(separator: ":").last!)
        else { throw RawClientError("no HTTPS URL in \(banner)") }
        httpsPort = port
        let export = try runProcess(
            binary, ["ca", "export", "--out", directory.path + "/ca.pem"], workingDirectory: directory.path,
            environment: environment)
        guard export.code == 0 else { throw RawClientError("ca export failed: \(export.error)") }
        if given != nil { _ = try FileManager.default.copyItem(atPath: directory.path + "/ca.pem", toPath: caFile) }
    }

    deinit {
        process.signal(SIGTERM)
        _ = process.waitForExit()
    }

    var fingerprint: String? {
        banner.split(separator: "\n").first { $0.contains("Local CA (SHA-256)") }?.split(separator: " ").last.map(
            String.init)
    }

    /// `curl --cacert` to `host` on the HTTPS port, connecting to loopback whatever the host is.
    func curl(_ host: String, _ path: String = "/_mock/health", extra: [String] = []) throws -> (
        code: Int32, output: String
    ) {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        var arguments = ["-sS", "--max-time", "10", "--cacert", caFile, "-w", "\n%{http_code}"]
        if host != "::1" {
            arguments += ["--connect-to", "\(bracketed):\(httpsPort):127.0.0.1:\(httpsPort)"]
        }
        let result = try runProcess("/usr/bin/curl", arguments + extra + ["https://\(bracketed):\(httpsPort)\(path)"])
        return (result.code, result.output + result.error)
    }

    func openssl(_ arguments: [String]) throws -> (code: Int32, output: String) {
        let command =
            "echo | '\(opensslTool)' s_client -connect 127.0.0.1:\(httpsPort) -CAfile \(caFile) "
            + arguments.joined(separator: " ")
        let result = try runProcess("/bin/sh", ["-c", command + " 2>&1"])
        return (result.code, result.output)
    }
}

@Suite("HTTPS with --tls auto, checked with curl, openssl and URLSession", .timeLimit(.minutes(3)))
struct TLSTests {
    @Test func curlVerifiesEveryNameInTheCertificateWithoutInsecureFlags() throws {
        let server = try TLSServer(["--tls-san", "mock.test"])
        let names = try String(contentsOfFile: server.dataDirectory + "/tls/server-sans.txt", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        #expect(names.starts(with: ["localhost", "127.0.0.1", "::1", "10.0.2.2"]))
        #expect(names.contains("mock.test"))
        for name in names {
            let result = try server.curl(name)
            #expect(result.code == 0, "\(name): \(result.output)")
            #expect(result.output.hasSuffix("\n200"), "\(name): \(result.output)")
        }
        let unlisted = try server.curl("not-listed.test")
        #expect(unlisted.code == 60, "a name outside the certificate must fail verification: \(unlisted.output)")
    }

    @Test func opensslShowsTLS13TheChainAndHTTP11() throws {
        let server = try TLSServer()
        let modern = try server.openssl(["-servername", "localhost", "-tls1_3", "-alpn", "h2,http/1.1"])
        #expect(modern.output.contains("TLSv1.3"))
        #expect(modern.output.contains("Verify return code: 0 (ok)"))
        #expect(modern.output.contains("ALPN protocol: http/1.1"))
        #expect(modern.output.contains("CN = campaign-mock local CA"))
        #expect(modern.output.contains("CN = localhost"))
        let tls12 = try server.openssl(["-tls1_2"])
        #expect(tls12.output.contains("Verify return code: 0 (ok)"))
        let tls11 = try server.openssl(["-tls1_1", "-cipher", "'DEFAULT@SECLEVEL=0'"])
        #expect(tls11.code != 0)
        #expect(tls11.output.contains("alert protocol version"), "\(tls11.output)")
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")))
    func urlSessionTrustsTheServerOnceTheCAIsTrusted() throws {
        let server = try TLSServer()
        let probe = URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("URLSessionProbe")
            .path
        let url = "https://localhost:\(server.httpsPort)/_mock/health"
        let untrusted = try runProcess(probe, [url])
        #expect(untrusted.code == 1, "without the CA the handshake must fail: \(untrusted.output)")
        // Trust the CA in a private mount namespace only: the system bundle, plus our CA, mounted over it.
        let bundle = "/etc/ssl/certs/ca-certificates.crt"
        let script =
            "cat \(bundle) \(server.caFile) > \(server.directory.path)/bundle.crt && "
            + "mount --bind \(server.directory.path)/bundle.crt \(bundle) && exec \(probe) \(url)"
        let trusted = try runProcess(
            "/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", script])
        #expect(trusted.code == 0, "\(trusted.output) \(trusted.error)")
        #expect(trusted.output.hasPrefix("200\n"))
        #expect(trusted.output.contains("\"status\":\"ok\""))
    }

    @Test func theSDKEndpointsAndTheAdminAPIWorkOverTLS() throws {
        let server = try TLSServer()
        let registration = try server.curl(
            "localhost", "/nms/mobile/1/registerIOS.jssp",
            extra: [
                "-H", "Content-Type: application/x-www-form-urlencoded;charset=UTF-8", "--data",
                "registrationToken=tls-token&mobileAppUuid=campaign-mock-demo-ios&userKey=u",
            ])
        #expect(registration.output == "OK\n200")
        #expect(try server.curl("localhost", "/r/?id=h3039,d,1").output == "\n200")
        let devices = try server.curl("127.0.0.1", "/_mock/devices?token=tls-token")
        #expect(devices.output.contains("\"registrationToken\":\"tls-token\""))
    }

    @Test func plainHTTPOnTheTLSPortGetsA400() throws {
        let server = try TLSServer()
        let client = try RawHTTPClient(port: server.httpsPort)
        try client.send("GET /_mock/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(response.text == "this port speaks HTTPS; use an https:// URL")
    }

    @Test func garbageAndStalledHandshakesDoNotDisturbAGoodClient() throws {
        let server = try TLSServer()
        let garbage = try RawHTTPClient(port: server.httpsPort)
        try garbage.send(
            [0x16, 0x03, 0x01, 0x00, 0x05, 0xde, 0xad, 0xbe, 0xef, 0x00] + Array(repeating: 0x41, count: 64))
        let stalled = try (0..<20).map { _ in try RawHTTPClient(port: server.httpsPort) }
        for client in stalled.prefix(10) { try client.send([0x16, 0x03, 0x01, 0x02]) }
        let started = Date()
        for _ in 0..<10 {
            #expect(try server.curl("localhost").output.hasSuffix("\n200"))
        }
        #expect(Date().timeIntervalSince(started) < 8, "the good client must not wait for the stalled ones")
        #expect(garbage.isClosedByServer())
    }

    @Test func aHandshakeThatDoesNotFinishIsClosed() throws {
        let server = try TLSServer(["--header-timeout", "300ms"])
        let stalled = try RawHTTPClient(port: server.httpsPort, timeoutSeconds: 5)
        try stalled.send([0x16, 0x03, 0x01])
        let started = Date()
        #expect(stalled.isClosedByServer())
        #expect(Date().timeIntervalSince(started) < 3)
    }

    @Test func aRestartKeepsTheCAAndTheServerCertificate() throws {
        let directory = TemporaryDirectory()
        let first = try TLSServer(directory: directory)
        let fingerprint = try #require(first.fingerprint)
        let certificate = try String(
            contentsOfFile: directory.path + "/.campaign-mock/tls/server-cert.pem", encoding: .utf8)
        first.process.signal(SIGTERM)
        #expect(first.process.waitForExit() == 0)
        let second = try TLSServer(directory: directory)
        #expect(second.fingerprint == fingerprint)
        #expect(
            try String(contentsOfFile: directory.path + "/.campaign-mock/tls/server-cert.pem", encoding: .utf8)
                == certificate)
        #expect(try second.curl("localhost").output.hasSuffix("\n200"))
    }

    @Test func servesHTTPSOnlyWithNoHTTP() throws {
        let server = try TLSServer(["--no-http"])
        #expect(!server.banner.contains("Marketing + tracking host"))
        #expect(try server.curl("localhost").output.hasSuffix("\n200"))
    }

    @Test func servesACertificateOfOnesOwn() throws {
        let directory = TemporaryDirectory()
        let made = try runProcess(
            opensslTool,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                "-keyout", directory.path + "/key.pem", "-out", directory.path + "/cert.pem",
            ])
        #expect(made.code == 0, "\(made.error)")
        let child = try ChildProcess(
            binary,
            [
                "serve", "--port", "0", "--in-memory", "--tls-port", "0", "--tls-cert", "cert.pem", "--tls-key",
                "key.pem",
            ],
            workingDirectory: directory.path)
        defer { child.signal(SIGTERM) }
        let banner = try #require(child.waitForOutput(containing: "Stop with Ctrl-C"))
        #expect(!banner.contains("Local CA"))
        let port = try #require(
            banner.range(of: #"https://localhost:(\d+)"#, options: .regularExpression).map {
                String(banner[$0].split(separator: ":").last!)
            })
        let result = try runProcess(
            "/usr/bin/curl", ["-sS", "--cacert", directory.path + "/cert.pem", "https://localhost:\(port)/_mock/ready"])
        #expect(result.output == #"{"ready":true}"#)

        let mismatched = try runProcess(
            binary,
            [
                "serve", "--port", "0", "--in-memory", "--tls-port", "0", "--tls-cert", "cert.pem", "--tls-key",
                "cert.pem",
            ],
            workingDirectory: directory.path)
        #expect(mismatched.code == 1)
        #expect(mismatched.error.contains("no PEM private key found"))
    }

    @Test func exportsTheCAInEveryFormat() throws {
        let directory = TemporaryDirectory()
        func export(_ format: String, _ out: String) throws {
            let result = try runProcess(
                binary, ["ca", "export", "--format", format, "--out", out], workingDirectory: directory.path)
            #expect(result.code == 0, "\(format): \(result.error)")
        }
        try export("pem", "ca.pem")
        try export("der", "ca.cer")
        try export("mobileconfig", "ca.mobileconfig")
        try export("android-nsc", "res")
        let pem = try runProcess(
            opensslTool,
            ["x509", "-in", directory.path + "/ca.pem", "-noout", "-fingerprint", "-sha256", "-subject"])
        let der = try runProcess(
            opensslTool,
            ["x509", "-inform", "der", "-in", directory.path + "/ca.cer", "-noout", "-fingerprint", "-sha256"])
        #expect(pem.output.contains("CN = campaign-mock local CA"))
        #expect(pem.output.split(separator: "\n").first == der.output.split(separator: "\n").first)

        let check = """
            import plistlib, sys
            profile = plistlib.load(open(sys.argv[1], "rb"))
            payload = profile["PayloadContent"][0]
            assert profile["PayloadType"] == "Configuration"
            assert payload["PayloadType"] == "com.apple.security.root"
            assert payload["PayloadContent"] == open(sys.argv[2], "rb").read()
            print("ok")
            """
        let plist = try runProcess(
            "/usr/bin/env", ["python3", "-c", check, directory.path + "/ca.mobileconfig", directory.path + "/ca.cer"])
        #expect(plist.output == "ok\n", "\(plist.error)")

        let config = try String(
            contentsOfFile: directory.path + "/res/xml/network_security_config.xml", encoding: .utf8)
        #expect(config.contains(#"<certificates src="@raw/campaign_mock_ca" />"#))
        #expect(
            try String(contentsOfFile: directory.path + "/res/raw/campaign_mock_ca.pem", encoding: .utf8)
                == String(contentsOfFile: directory.path + "/ca.pem", encoding: .utf8))
        let xml = try runProcess(
            "/usr/bin/env",
            [
                "python3", "-c", "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1]); print('ok')",
                directory.path + "/res/xml/network_security_config.xml",
            ])
        #expect(xml.output == "ok\n")

        let bad = try runProcess(binary, ["ca", "export", "--format", "p12"], workingDirectory: directory.path)
        #expect(bad.code == 2)
        #expect(bad.error.contains("--format must be one of pem, der, mobileconfig, android-nsc"))
    }
}

/// One CA per user (`CAMPAIGN_MOCK_CAROOT`, or the user's data folder), shared by every data directory.
@Suite("the per-user local CA", .timeLimit(.minutes(3)))
struct PerUserCertificateAuthorityTests {
    /// The fingerprint openssl reads from a PEM file, as the banner shows it.
    private func fingerprint(_ file: String) throws -> String {
        let result = try runProcess(opensslTool, ["x509", "-in", file, "-noout", "-fingerprint", "-sha256"])
        return String(result.output.split(separator: "=").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func twoDataDirectoriesAndAnInMemoryServerShareOneCA() throws {
        let home = TemporaryDirectory()
        let environment = ["CAMPAIGN_MOCK_CAROOT": "", "XDG_DATA_HOME": "", "HOME": home.path]
        let one = try TLSServer(environment: environment)
        let two = try TLSServer(environment: environment)
        let inMemory = try TLSServer(["--in-memory"], environment: environment)
        #if os(macOS)
            let folder = home.path + "/Library/Application Support/campaign-mock/ca"
        #else
            let folder = home.path + "/.local/share/campaign-mock/ca"
        #endif
        #expect(one.banner.contains("kept in \(folder)"))
        #expect(one.fingerprint != nil && one.fingerprint == two.fingerprint && two.fingerprint == inMemory.fingerprint)
        #expect(try fingerprint(folder + "/ca-cert.pem") == one.fingerprint)
        // Each data directory keeps its own server certificate, and no CA of its own.
        let first = try String(contentsOfFile: one.dataDirectory + "/tls/server-cert.pem", encoding: .utf8)
        #expect(try String(contentsOfFile: two.dataDirectory + "/tls/server-cert.pem", encoding: .utf8) != first)
        #expect(!FileManager.default.fileExists(atPath: one.dataDirectory + "/tls/ca-key.pem"))
        // A CA exported from one project's folder is trusted by the other project's server.
        #expect(try two.curl("localhost", extra: ["--cacert", one.caFile]).output.hasSuffix("\n200"))
        let path = try runProcess(binary, ["ca", "path"], environment: environment)
        #expect(path.code == 0 && path.output == folder + "\n")
    }

    /// The CA exported anywhere is the one the running server hands out at `GET /_mock/ca`.
    @Test func caExportFromAnotherFolderMatchesWhatTheServerServes() throws {
        let caroot = TemporaryDirectory()
        let environment = ["CAMPAIGN_MOCK_CAROOT": caroot.path + "/ca"]
        let server = try TLSServer(environment: environment)
        let elsewhere = TemporaryDirectory()
        let exported = try runProcess(
            binary, ["ca", "export", "--out", "exported.pem"], workingDirectory: elsewhere.path,
            environment: environment)
        #expect(exported.code == 0, "\(exported.error)")
        #expect(exported.error.contains("the CA in \(caroot.path)/ca, SHA-256 \(server.fingerprint ?? "?")"))
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path + "/.campaign-mock"), "no data directory made")
        let served = try server.curl(
            "localhost", "/_mock/ca?format=pem", extra: ["-o", elsewhere.path + "/served.pem"])
        #expect(served.output.hasSuffix("200"))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: elsewhere.path + "/served.pem"))
                == Data(contentsOf: URL(fileURLWithPath: elsewhere.path + "/exported.pem")))
        let path = try runProcess(binary, ["ca", "path"], environment: environment)
        #expect(path.output == caroot.path + "/ca\n")
    }

    /// A team's CA made with openssl, given through CAMPAIGN_MOCK_CAROOT: used as it is, never rewritten.
    @Test func aSuppliedCAIsUsedAndItsFingerprintShown() throws {
        let caroot = TemporaryDirectory()
        let made = try runProcess(
            opensslTool,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30",
                "-subj", "/CN=Team CA", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                "-keyout", caroot.path + "/ca-key.pem", "-out", caroot.path + "/ca-cert.pem",
            ])
        #expect(made.code == 0, "\(made.error)")
        let before = try Data(contentsOf: URL(fileURLWithPath: caroot.path + "/ca-cert.pem"))
        let server = try TLSServer(environment: ["CAMPAIGN_MOCK_CAROOT": caroot.path])
        #expect(server.fingerprint == (try fingerprint(caroot.path + "/ca-cert.pem")))
        #expect(server.banner.contains("kept in \(caroot.path)"))
        #expect(
            try server.curl("localhost", extra: ["--cacert", caroot.path + "/ca-cert.pem"]).output.hasSuffix("\n200"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: caroot.path + "/ca-cert.pem")) == before)
    }

    @Test func aCertificateWithoutItsKeyIsRefusedAtStart() throws {
        let caroot = TemporaryDirectory()
        let made = try runProcess(
            binary, ["ca", "export", "--out", caroot.path + "/ca-cert.pem"], workingDirectory: caroot.path,
            environment: ["CAMPAIGN_MOCK_CAROOT": caroot.path + "/elsewhere"])
        #expect(made.code == 0)
        let directory = TemporaryDirectory()
        let started = try runProcess(
            binary, ["serve", "--port", "0", "--tls", "auto", "--tls-port", "0"], workingDirectory: directory.path,
            environment: ["CAMPAIGN_MOCK_CAROOT": caroot.path])
        #expect(started.code == 1)
        #expect(started.error.contains("ca-cert.pem is there without ca-key.pem"), "\(started.error)")
        #expect(started.error.contains("CAMPAIGN_MOCK_CAROOT"))
        #expect(!FileManager.default.fileExists(atPath: caroot.path + "/ca-key.pem"))
        let exported = try runProcess(
            binary, ["ca", "export"], workingDirectory: directory.path,
            environment: ["CAMPAIGN_MOCK_CAROOT": caroot.path])
        #expect(exported.code == 1 && exported.error.contains("without ca-key.pem"))
    }

    /// A data directory made by an older version holds its CA in tls/: the first start moves it into an
    /// empty per-user folder, so the devices that trust it keep working, and the banner says so.
    @Test func theCAOfAnOlderDataDirectoryMovesIntoTheEmptyFolder() throws {
        let directory = TemporaryDirectory()
        let tls = directory.path + "/.campaign-mock/tls"
        let caroot = TemporaryDirectory()
        let older = try runProcess(
            binary, ["ca", "export"], workingDirectory: caroot.path, environment: ["CAMPAIGN_MOCK_CAROOT": tls])
        #expect(older.code == 0)
        let olderFingerprint = try fingerprint(tls + "/ca-cert.pem")
        let server = try TLSServer(directory: directory, environment: ["CAMPAIGN_MOCK_CAROOT": caroot.path + "/ca"])
        #expect(server.fingerprint == olderFingerprint)
        // The server names the folder from its working directory as getcwd gives it, symbolic links resolved
        // (on macOS /tmp is a link to /private/tmp): the same path, resolved as getcwd resolves it (Foundation's
        // resolvingSymlinksInPath gives /tmp back on macOS).
        let resolved = try #require(
            realpath(directory.path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            })
        #expect(server.banner.contains("moved there from \(resolved)/.campaign-mock/tls"), "\(server.banner)")
        #expect(try fingerprint(caroot.path + "/ca/ca-cert.pem") == olderFingerprint)
        #expect(!FileManager.default.fileExists(atPath: tls + "/ca-key.pem"))
    }
}
