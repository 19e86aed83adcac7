import CampaignMockHTTP
import CampaignMockSystem
import CampaignMockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a new user meets in the first minutes: the banner's URLs and hints, and the messages of the CLI
/// when something is off.
@Suite("first run", .timeLimit(.minutes(2)))
struct FirstRunTests {
    @Test func theBannerListsTheURLsDevicesUseWhenListeningBeyondLoopback() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe(
            ["--in-memory", "--host", "0.0.0.0", "--tls", "auto", "--tls-port", "0"], in: directory)
        defer { server.signal(SIGTERM) }
        let banner = try #require(server.waitForOutput(containing: "Stop with Ctrl-C"))
        #expect(banner.contains("Marketing + tracking host  http://127.0.0.1:\(port)"))
        #expect(banner.contains("Console                    http://127.0.0.1:\(port)/_mock/ui/"))
        #expect(banner.contains("(operators admin, mc, bearer token campaign-mock-bearer-token)"))
        #expect(banner.contains("http://10.0.2.2:\(port)  "))
        #expect(banner.contains("Android emulator"))
        let tlsPort = try #require(
            banner.firstMatch(of: #/https://localhost:(\d+)/#).map { String($0.output.1) })
        #expect(banner.contains("https://10.0.2.2:\(tlsPort)"))
        for address in NetworkInterfaces.nonLoopbackAddresses() where !address.contains(":") {
            #expect(banner.contains("http://\(address):\(port)"), "\(address) missing from the banner")
            #expect(banner.contains("https://\(address):\(tlsPort)"), "\(address) missing from the banner")
        }
    }

    @Test func onLoopbackTheBannerListsOnlyTheEmulatorsAlias() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe(["--in-memory"], in: directory)
        defer { server.signal(SIGTERM) }
        let banner = try #require(server.waitForOutput(containing: "Stop with Ctrl-C"))
        let deviceLines = banner.split(separator: "\n").filter { $0.hasPrefix("    http") }
        #expect(deviceLines.map { $0.split(separator: " ").first ?? "" } == ["http://10.0.2.2:\(port)"])
    }

    @Test func theBannersHintsNameTheBinaryAsTheUserCanRunIt() throws {
        let directory = TemporaryDirectory()
        // Not on PATH: the hint names the file.
        let (server, _) = try startServe(["--in-memory", "--tls", "auto", "--tls-port", "0"], in: directory)
        let banner = try #require(server.waitForOutput(containing: "Stop with Ctrl-C"))
        server.signal(SIGTERM)
        _ = server.waitForExit()
        let real = try #require(realpath(binary, nil).map { String(cString: $0) })
        #expect(banner.contains("devices must trust it: \(real) ca export"))

        // On PATH (as after make install): the bare name.
        let bin = directory.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin + "/campaign-mock", withDestinationPath: binary)
        let onPath = try ChildProcess(
            bin + "/campaign-mock", ["serve", "--port", "0", "--in-memory", "--tls", "auto", "--tls-port", "0"],
            workingDirectory: directory.path,
            environment: ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")])
        let installed = try #require(onPath.waitForOutput(containing: "Stop with Ctrl-C"))
        onPath.signal(SIGTERM)
        _ = onPath.waitForExit()
        #expect(installed.contains("devices must trust it: campaign-mock ca export"))
    }

    @Test func aTakenTLSPortIsNamedWithItsFlag() throws {
        let directory = TemporaryDirectory()
        let (first, port) = try startServe(["--in-memory"], in: directory)
        defer { first.signal(SIGTERM) }
        let second = try runProcess(
            binary, ["serve", "--in-memory", "--port", "0", "--tls", "auto", "--tls-port", String(port)],
            workingDirectory: directory.path)
        #expect(second.code == 1)
        #expect(second.error.contains("cannot listen on 127.0.0.1:\(port) (--tls-port)"))
        #expect(second.error.contains("--tls-port 0 for any free port"))
    }

    #if os(Linux)
        /// util-linux `script` runs the command on a pseudo-terminal, as a user's shell would.
        @Test func derIsNotWrittenToATerminal() throws {
            let directory = TemporaryDirectory()
            let command = "'\(binary)' ca export --format der; echo exit=$?"
            let terminal = try runProcess(
                "/usr/bin/script", ["-qec", command, "/dev/null"], workingDirectory: directory.path)
            #expect(terminal.output.contains("exit=2"))
            #expect(terminal.output.contains("DER is binary and standard output is a terminal"))
            #expect(terminal.output.contains("--out campaign-mock-ca.cer"))

            // Into a pipe it is written as it is.
            let piped = try runProcess(
                "/bin/sh", ["-c", "'\(binary)' ca export --format der | od -An -tx1 | head -n 1"],
                workingDirectory: directory.path)
            #expect(piped.code == 0)
            #expect(piped.output.hasPrefix(" 30 82"), "\(piped.output)")  // a DER SEQUENCE
        }
    #endif

    @Test func androidExportSaysToMoveTheFilesOnlyWhenTheyAreNotInResources() throws {
        let directory = TemporaryDirectory()
        let inPlace = try runProcess(
            binary, ["ca", "export", "--format", "android-nsc", "--out", "app/src/debug/res"],
            workingDirectory: directory.path)
        #expect(inPlace.code == 0)
        #expect(!inPlace.error.contains("move"))
        #expect(inPlace.error.contains("app/src/debug/AndroidManifest.xml"))
        let elsewhere = try runProcess(
            binary, ["ca", "export", "--format", "android-nsc", "--out", "nsc"], workingDirectory: directory.path)
        #expect(elsewhere.code == 0)
        #expect(elsewhere.error.contains("move xml/ and raw/ into app/src/debug/res/"))
    }

    @Test func pushForTheWrongPlatformCreatesNothing() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe(["--in-memory"], in: directory)
        defer { server.signal(SIGTERM) }
        let client = try RawHTTPClient(port: port)
        let body = "registrationToken=\(DeviceTokens.apns)&mobileAppUuid=campaign-mock-demo-ios"
        try client.send(
            "POST /nms/mobile/1/registerIOS.jssp HTTP/1.1\r\nHost: m\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        )
        #expect(try client.readResponse().status == 200)

        let fcm = try runProcess(
            binary,
            [
                "push", "--server", "http://127.0.0.1:\(port)", "--token", DeviceTokens.apns, "--body", "Hi",
                "--format", "fcm",
            ])
        #expect(fcm.code == 1)
        #expect(fcm.error.contains("no registered Android device with token '\(DeviceTokens.apns)'"))
        try client.send("GET /_mock/push/1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try client.readResponse().status == 404)
        try client.send("GET /_mock/devices/\(DeviceTokens.apns) HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let device = try JSONSerialization.jsonObject(with: Data(try client.readResponse().body)) as? [String: Any]
        #expect((device?["messages"] as? [Any])?.isEmpty == true)
    }
}
