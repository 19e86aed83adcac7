import CampaignMock
import CampaignMockHTTP
import CampaignMockModel
import CampaignMockNetwork
import CampaignMockTestSupport
import Dispatch
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let binary = campaignMockBinary

/// Starts `campaign-mock serve` on port 0 in a temp dir and waits for its banner; returns the process and port.
func startServe(_ arguments: [String] = [], in directory: TemporaryDirectory) throws -> (ChildProcess, UInt16) {
    let child = try ChildProcess(binary, ["serve", "--port", "0"] + arguments, workingDirectory: directory.path)
    guard let banner = child.waitForOutput(containing: "Stop with Ctrl-C") else {
        throw RawClientError("no banner; stderr: \(child.standardError)")
    }
    guard let range = banner.range(of: #"http://127\.0\.0\.1:(\d+)"#, options: .regularExpression),
        let port = UInt16(banner[range].split(separator: ":").last!)
    else { throw RawClientError("no URL in banner: \(banner)") }
    return (child, port)
}

@Suite("campaign-mock binary", .timeLimit(.minutes(2)))
struct CLITests {
    @Test func printsHelpWithEverySetting() throws {
        let result = try runProcess(binary, ["serve", "--help"])
        #expect(result.code == 0)
        for flag in [
            "--host", "--port", "--data-dir", "--in-memory", "--config", "--log-level", "--log-format",
            "--journal-limit", "--max-body-size", "--max-header-size", "--max-header-count",
            "--max-request-line", "--max-connections", "--header-timeout", "--body-timeout",
            "--idle-timeout", "--shutdown-grace", "--event-loops", "--app", "--strict-tracking", "--admin-token",
            "--tls", "--tls-port", "--tls-cert", "--tls-key", "--tls-san", "--no-http", "--soap-login",
            "--soap-password", "--soap-bearer-token", "--soap-session-timeout", "--push-id-style", "--record",
            "--no-redact", "--upstream",
            "--upstream-ca",
        ] {
            #expect(result.output.contains(flag), "\(flag) missing from --help")
        }
        for setting in Setting.all {
            #expect(result.output.contains(setting.environmentVariable), "\(setting.key) missing from --help")
        }
    }

    /// `version` and `--version` say the same: the version, and the commit the build was told of (the
    /// Makefile exports CAMPAIGN_MOCK_COMMIT to the build and to the tests alike).
    @Test func printsTheVersionAndTheCommit() throws {
        let commit = ProcessInfo.processInfo.environment["CAMPAIGN_MOCK_COMMIT"].flatMap { $0.isEmpty ? nil : $0 }
        for arguments in [["version"], ["--version"]] {
            let result = try runProcess(binary, arguments)
            #expect(result.code == 0)
            #expect(result.output == "campaign-mock \(CampaignMockVersion.current) (commit \(commit ?? "unknown"))\n")
        }
    }

    /// A container's health check has no curl: `health` answers 0 for a ready server, 1 with the reason
    /// for one that is gone, and finds the server by CAMPAIGN_MOCK_PORT as the container sets it.
    @Test func healthSaysWhetherTheServerIsReady() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe(["--in-memory"], in: directory)
        let ready = try runProcess(binary, ["health", "--server", "http://127.0.0.1:\(port)"])
        #expect(ready.code == 0)
        #expect(ready.output == "ready: 127.0.0.1:\(port)\n")
        let byPort = try runProcess(binary, ["health"], environment: ["CAMPAIGN_MOCK_PORT": "\(port)"])
        #expect(byPort.code == 0)
        server.signal(SIGTERM)
        #expect(server.waitForExit(timeoutSeconds: 10) == 0)
        let gone = try runProcess(binary, ["health", "--server", "http://127.0.0.1:\(port)", "--timeout", "2"])
        #expect(gone.code == 1)
        #expect(gone.error.contains("not ready: cannot connect to 127.0.0.1:\(port)"))
    }

    /// A server that closes the connection before answering: the client commands fail with a message
    /// and exit 1, not die of SIGPIPE (141).
    @Test func clientCommandsSurviveAServerThatHangsUp() throws {
        let listener = try Socket.listen(on: SocketAddress(parsing: "127.0.0.1", port: 0), backlog: 16)
        let port = try listener.localAddress().port
        let done = DispatchSemaphore(value: 0)
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            while done.wait(timeout: .now() + .milliseconds(2)) == .timedOut {
                if let (client, _) = try? listener.accept() { client.resetAndClose() }
            }
            stopped.signal()
        }.start()
        // The listener closes only once the thread stopped taking connections from it.
        defer {
            done.signal()
            stopped.wait()
            listener.close()
        }
        let server = "http://127.0.0.1:\(port)"
        for arguments in [
            ["push", "--server", server, "--token", "t", "--title", "x"], ["health", "--server", server],
        ] {
            let result = try runProcess(binary, arguments)
            #expect(result.code == 1, "\(arguments[0]) exited \(result.code): \(result.error)")
            #expect(!result.error.isEmpty)
        }
    }

    @Test func exitsWith2OnAnUnknownFlag() throws {
        let result = try runProcess(binary, ["serve", "--no-such-flag"])
        #expect(result.code == 2)
        #expect(result.error.contains("--no-such-flag"))
    }

    @Test func anUnknownCommandListsTheCommands() throws {
        let result = try runProcess(binary, ["start"])
        #expect(result.code == 2)
        #expect(
            result.error.contains("'start' is not a campaign-mock command. Did you mean 'serve'?"), "\(result.error)")
        for command in ["serve", "push", "tail", "replay", "ca", "health", "version"] {
            #expect(result.error.contains("\n  \(command) "), "\(command) is not listed: \(result.error)")
        }
    }

    @Test func exitsWith2OnABadValueNamingIt() throws {
        let directory = TemporaryDirectory()
        let result = try runProcess(binary, ["serve", "--port", "http"], workingDirectory: directory.path)
        #expect(result.code == 2)
        #expect(result.error.contains("--port: 'http' is not a valid port number"))

        let env = try runProcess(
            binary, ["serve"], workingDirectory: directory.path,
            environment: ["CAMPAIGN_MOCK_LOG_FORMAT": "xml"])
        #expect(env.code == 2)
        #expect(env.error.contains("CAMPAIGN_MOCK_LOG_FORMAT"))
    }

    @Test func exitsWith2OnABadConfigFile() throws {
        let directory = TemporaryDirectory()
        try #"{"journalLimit": "many"}"#.write(
            toFile: directory.path + "/campaign-mock.json", atomically: true, encoding: .utf8)
        let result = try runProcess(binary, ["serve", "--port", "0"], workingDirectory: directory.path)
        #expect(result.code == 2)
        #expect(result.error.contains("campaign-mock.json: journalLimit"))

        try "{\n  \"port\": 0,\n  \"logLevel\": \"debug\",\n}\n".write(
            toFile: directory.path + "/campaign-mock.json", atomically: true, encoding: .utf8)
        let syntax = try runProcess(binary, ["serve"], workingDirectory: directory.path)
        #expect(syntax.code == 2)
        #expect(
            syntax.error.contains("campaign-mock.json: line 4, column 1: a comma before '}' (JSON allows none)"),
            "\(syntax.error)")

        let missing = try runProcess(binary, ["serve", "--config", "nope.json"], workingDirectory: directory.path)
        #expect(missing.code == 2)
        #expect(missing.error.contains("nope.json"))
    }

    @Test func servesOnPortZeroAnswersReadyAndStopsOnSIGTERM() throws {
        let directory = TemporaryDirectory()
        let (child, port) = try startServe(in: directory)
        let client = try RawHTTPClient(port: port)
        try client.send("GET /_mock/ready HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        #expect(FileManager.default.fileExists(atPath: directory.path + "/.campaign-mock/campaign-mock.sqlite3"))

        child.signal(SIGTERM)
        #expect(child.waitForExit(timeoutSeconds: 10) == 0)
        #expect(child.standardError.contains("received SIGTERM, shutting down"))
    }

    /// serve is the default command: settings alone start it, read without the command parser.
    @Test func servesWithSettingsAloneAsTheDefaultCommand() throws {
        let directory = TemporaryDirectory()
        let child = try ChildProcess(binary, ["--port=0", "--in-memory"], workingDirectory: directory.path)
        guard let banner = child.waitForOutput(containing: "Stop with Ctrl-C") else {
            Issue.record("no banner; stderr: \(child.standardError)")
            return
        }
        #expect(banner.contains("in memory"))
        child.signal(SIGTERM)
        #expect(child.waitForExit(timeoutSeconds: 10) == 0)
    }

    @Test func stopsOnSIGINTToo() throws {
        let directory = TemporaryDirectory()
        let (child, _) = try startServe(["--in-memory"], in: directory)
        #expect(child.standardOutput.contains("in memory"))
        child.signal(SIGINT)
        #expect(child.waitForExit(timeoutSeconds: 10) == 0)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/.campaign-mock"))
    }

    @Test func logsOneJSONLinePerRequest() throws {
        let directory = TemporaryDirectory()
        let (child, port) = try startServe(["--log-format", "json", "--in-memory"], in: directory)
        let client = try RawHTTPClient(port: port)
        try client.send("GET /_mock/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        _ = try client.readResponse()
        child.signal(SIGTERM)
        _ = child.waitForExit()
        let line = try #require(child.standardError.split(separator: "\n").first { $0.contains("/_mock/health") })
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["level"] as? String == "info")
        #expect((object?["message"] as? String)?.hasPrefix("GET /_mock/health 200") == true)
    }

    @Test func exitsWith1WhenThePortIsTaken() throws {
        let directory = TemporaryDirectory()
        let (child, port) = try startServe(["--in-memory"], in: directory)
        let second = try runProcess(
            binary, ["serve", "--in-memory", "--port", String(port)], workingDirectory: directory.path)
        #expect(second.code == 1)
        #expect(
            second.error.contains(
                "cannot listen on 127.0.0.1:\(port) (--port): the port is already in use (another campaign-mock or "
                    + "another server); choose another with --port PORT, or --port 0 for any free port"))
        child.signal(SIGTERM)
        _ = child.waitForExit()
    }
}

@Suite("durability across SIGKILL", .timeLimit(.minutes(2)))
struct DurabilityTests {
    @Test func everyAcknowledgedRegistrationAndEventSurvivesKill9() throws {
        let directory = TemporaryDirectory()
        let (first, port) = try startServe(["--app", "android:durable-key"], in: directory)
        let acknowledgedTokens = LockedSet()
        let acknowledgedHits = LockedSet()
        runConcurrently(4) { worker in
            guard let client = try? RawHTTPClient(port: port) else { return }
            for index in 0..<100 {
                let token = "token-\(worker)-\(index)"
                let body = "registrationToken=\(token)&mobileAppUuid=durable-key&userKey=u\(index)"
                let hit = "h\(String(worker * 1000 + index, radix: 16)),d\(worker),1"
                do {
                    try client.send(
                        "POST /nms/mobile/1/registerAndroid.jssp HTTP/1.1\r\nHost: m\r\n"
                            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                            + body)
                    if try client.readResponse().status == 200 { acknowledgedTokens.insert(token) }
                    try client.send("GET /r/?id=\(hit) HTTP/1.1\r\nHost: t\r\n\r\n")
                    if try client.readResponse().status == 200 { acknowledgedHits.insert(hit) }
                } catch {
                    return
                }
            }
        }
        first.signal(SIGKILL)
        #expect(first.waitForExit() == 128 + SIGKILL)

        let (second, newPort) = try startServe(["--app", "android:durable-key"], in: directory)
        defer { second.signal(SIGTERM) }
        let client = try RawHTTPClient(port: newPort)
        var storedTokens: Set<String> = []
        var cursor = 0
        repeat {
            try client.send("GET /_mock/devices?limit=1000&after=\(cursor) HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let page = try JSONSerialization.jsonObject(with: Data(try client.readResponse().body)) as? [String: Any]
            for device in page?["devices"] as? [[String: Any]] ?? [] {
                storedTokens.insert(device["registrationToken"] as? String ?? "")
            }
            cursor = page?["nextCursor"] as? Int ?? 0
        } while cursor != 0
        try client.send("GET /_mock/events?limit=1000 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let events = try JSONSerialization.jsonObject(with: Data(try client.readResponse().body)) as? [String: Any]
        let storedHits = Set((events?["events"] as? [[String: Any]] ?? []).compactMap { $0["rawId"] as? String })

        #expect(acknowledgedTokens.values.count == 400)
        #expect(acknowledgedHits.values.count == 400)
        #expect(acknowledgedTokens.values.isSubset(of: storedTokens))
        #expect(acknowledgedHits.values.isSubset(of: storedHits))
    }
}

/// Stock HTTP clients, run as they are.
@Suite("stock HTTP clients", .timeLimit(.minutes(3)))
struct StockClientTests {
    /// ApacheBench speaks HTTP/1.0; with -k it keeps connections only when the answer says keep-alive.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ab"), "needs ab (apache2-utils)"))
    func apacheBenchWithKeepAliveCompletes() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe(["--in-memory", "--log-level", "warning"], in: directory)
        defer { server.signal(SIGTERM) }
        let result = try runProcess(
            "/usr/bin/ab", ["-k", "-n", "2000", "-c", "8", "-s", "10", "http://127.0.0.1:\(port)/_mock/ready"],
            timeoutSeconds: 30)
        #expect(result.code == 0, "\(result.error)")
        #expect(result.output.contains("Complete requests:      2000"))
        #expect(result.output.contains("Failed requests:        0"))
        #expect(result.output.contains("Keep-Alive requests:    2000"))
    }
}
