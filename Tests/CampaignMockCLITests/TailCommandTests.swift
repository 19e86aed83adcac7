import CampaignMockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("campaign-mock tail", .timeLimit(.minutes(2)))
struct TailCommandTests {
    private func register(_ port: UInt16, token: String) throws {
        let client = try RawHTTPClient(port: port)
        let body = "registrationToken=\(token)&mobileAppUuid=campaign-mock-demo-ios"
        try client.send(
            "POST /nms/mobile/1/registerIOS.jssp HTTP/1.1\r\nHost: m\r\nContent-Type: application/x-www-form-urlencoded"
                + "\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        #expect(try client.readResponse().status == 200)
    }

    private func lines(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func printsEventsAsTheyHappenAndFollowsARestartedServer() throws {
        let directory = TemporaryDirectory()
        let (server, port) = try startServe([], in: directory)
        let tail = try ChildProcess(
            binary, ["tail", "--server", "http://127.0.0.1:\(port)", "--json", "--type", "registration"])
        #expect(tail.waitForStandardError(containing: "stop with Ctrl-C") != nil)
        try register(port, token: "before-restart")
        #expect(tail.waitForOutput(containing: "before-restart") != nil)

        // The server stops and comes back on the same port: tail reconnects, says it missed what it
        // cannot resume (ids start again with each run), and goes on.
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
        let restarted = try ChildProcess(
            binary, ["serve", "--port", String(port)], workingDirectory: directory.path)
        defer { restarted.signal(SIGTERM) }
        #expect(restarted.waitForOutput(containing: "Stop with Ctrl-C") != nil)
        #expect(
            tail.waitForOutput(containing: #""type":"gap""#, timeoutSeconds: 30) != nil,
            "tail: \(tail.standardOutput) \(tail.standardError); server: \(restarted.standardError)")
        try register(port, token: "after-restart")
        #expect(tail.waitForOutput(containing: "after-restart") != nil)

        tail.signal(SIGINT)
        #expect(tail.waitForExit() == 0)
        let events = lines(tail.standardOutput)
        #expect(events.map { $0["type"] as? String } == ["registration", "shutdown", "gap", "registration"])
        let tokens = events.compactMap { ($0["data"] as? [String: Any])?["registrationToken"] as? String }
        #expect(tokens == ["before-restart", "after-restart"])
    }

    @Test(
        arguments: [
            (["tail", "--server", "http://127.0.0.1:9"], Int32(1)),
            (["tail", "--type", "registrations"], Int32(2)),
            (["tail", "--server", "ftp://x"], Int32(2)),
            // The names tail had before it shared push's still work.
            (["tail", "--url", "http://127.0.0.1:9", "--token", "t"], Int32(1)),
            (["tail", "--url", "ftp://x"], Int32(2)),
        ] as [([String], Int32)])
    func exitCodes(_ arguments: [String], _ code: Int32) throws {
        let result = try runProcess(binary, arguments)
        #expect(result.code == code, "\(result.error)")
        #expect(result.error.hasPrefix("error: "))
    }
}
