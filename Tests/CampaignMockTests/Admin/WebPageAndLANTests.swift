import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock

/// What a web page or a peer on the network can make the mock do with its imports and its device tools
/// (docs/security.md): an import is decided on its head, before a byte of its body is kept or `100
/// Continue` is sent, and runs alone; a page's request never runs `xcrun` or `adb`, and the tools run at
/// most two at a time. With the Host and Origin an attacker would send: over real sockets where the wire
/// matters (a head refused before its body, a client that goes away), in process otherwise.
@Suite("web pages and LAN peers: imports and device tools", .timeLimit(.minutes(2)))
struct WebPageAndLANTests {
    /// A head that asks for `100 Continue` before its 2 GB body.
    private func importHead(host: String, extra: [String] = []) -> String {
        "PUT /_mock/state HTTP/1.1\r\nHost: \(host)\r\n" + extra.map { $0 + "\r\n" }.joined()
            + "Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2000000000\r\n\r\n"
    }

    /// The spooled request bodies open in this process under `folder` (a server's data directory is in
    /// it): each is an unlinked file, which `/proc/self/fd` still shows (`…/.campaign-mock-body-XXXXXX
    /// (deleted)`).
    private func spooledBodies(in folder: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { descriptor in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + descriptor))
            return target.map { $0.hasPrefix(folder + "/") && $0.contains("/.campaign-mock-body-") } ?? false
        }.count
    }

    /// Whether this system has `/proc/self/fd` (Linux): the tests that count spooled bodies skip without it.
    static let listsDescriptors = FileManager.default.fileExists(atPath: "/proc/self/fd")

    @Test(.enabled(if: Self.listsDescriptors, "counts the spooled bodies in /proc/self/fd, which only Linux has"))
    func aRefusedImportGetsItsAnswerWithoutContinueAndNothingOfItsBodyIsKept() throws {
        let live = try LiveServer()
        let folder = try #require(live.directory).path
        for (host, extra, status) in [
            ("evil.example:\(live.port)", [String](), 403),  // a DNS-rebinding page
            ("127.0.0.1:\(live.port)", ["Origin: http://evil.example"], 403),  // a cross-site page
            ("127.0.0.1:\(live.port)", ["Sec-Fetch-Site: cross-site"], 403),
        ] {
            let client = try RawHTTPClient(port: live.port)
            try client.send(importHead(host: host, extra: extra))
            // The first thing that comes back is the refusal, then the connection closes unread.
            let response = try client.readResponse()
            #expect(response.status == status, "\(host) \(extra)")
            #expect(response.text.contains("refused") || response.text.contains("--allowed-host"), "\(response.text)")
            #expect(client.isClosedByServer())
            #expect(try spooledBodies(in: folder) == 0)
        }
        // With --admin-token, a head without it is refused the same way.
        let guarded = try LiveServer { $0.adminToken = "s3cret-token" }
        let client = try RawHTTPClient(port: guarded.port)
        try client.send(importHead(host: "127.0.0.1:\(guarded.port)"))
        #expect(try client.readResponse().status == 401)
        #expect(client.isClosedByServer())
        #expect(try spooledBodies(in: try #require(guarded.directory).path) == 0)
    }

    @Test(.enabled(if: Self.listsDescriptors, "counts the spooled bodies in /proc/self/fd, which only Linux has"))
    func importsRunOneAtATime() throws {
        let live = try LiveServer()
        let folder = try #require(live.directory).path
        let host = "127.0.0.1:\(live.port)"
        let snapshot = try live.send("GET", "/_mock/state", body: nil, headers: [:]).body
        // The first import is admitted: told to go on, its body file open, its body not sent yet.
        let first = try RawHTTPClient(port: live.port)
        try first.send(
            "PUT /_mock/state HTTP/1.1\r\nHost: \(host)\r\nExpect: 100-continue\r\n"
                + "Content-Length: \(snapshot.utf8.count)\r\n\r\n")
        #expect(try first.readResponse().status == 100)
        #expect(try spooledBodies(in: folder) == 1)

        // A second one meanwhile is refused on its head, whole body sent or not, and keeps nothing.
        for expect in ["Expect: 100-continue\r\n", ""] {
            let second = try RawHTTPClient(port: live.port)
            try second.send(
                "PUT /_mock/state HTTP/1.1\r\nHost: \(host)\r\n\(expect)Content-Length: \(snapshot.utf8.count)\r\n\r\n"
                    + (expect.isEmpty ? snapshot : ""))
            let refused = try second.readResponse()
            #expect(refused.status == 409)
            #expect(refused.text.contains("one at a time"), "\(refused.text)")
            #expect(second.isClosedByServer())
        }
        #expect(try spooledBodies(in: folder) == 1)

        // The first goes through; then the slot is free again.
        try first.send(snapshot)
        #expect(try first.readResponse().status == 200)
        #expect(try live.send("PUT", "/_mock/state", body: snapshot, headers: [:]).status == 200)
        #expect(try spooledBodies(in: folder) == 0)
    }

    /// A page on a name of its own that resolves to this machine (DNS rebinding) is same-origin to the mock:
    /// only its Host tells it apart. The SOAP router refuses it (it could read every registration with
    /// ExecuteQuery, or compose a push that --auto-send sends), while backends, which send no Origin, reach
    /// the mock by any name.
    @Test func aRebindingPageGetsNoSOAPAnswerWhileBackendsDo() throws {
        let live = try InProcessServer()
        let envelope = """
            <soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:xtk:session">\
            <soapenv:Header/><soapenv:Body><urn:GetServerTime><urn:sessiontoken/></urn:GetServerTime></soapenv:Body>\
            </soapenv:Envelope>
            """
        func post(host: String, _ browser: [String: String]) throws -> (status: Int, body: String) {
            let headers = ["Host": host, "Content-Type": "text/plain", "SOAPAction": "xtk:session#GetServerTime"]
            let response = try live.request(
                "POST", "/nl/jsp/soaprouter.jsp", body: envelope, headers: headers.merging(browser) { $1 })
            return (response.status, response.body)
        }
        let evil = "evil.example:\(live.port)"
        for browser in [
            ["Origin": "http://\(evil)", "Sec-Fetch-Site": "same-origin"], ["Sec-Fetch-Site": "same-origin"],
        ] {
            let page = try post(host: evil, browser)
            #expect(page.status == 403, "\(browser)")
            #expect(page.body.contains("DNS rebinding"), "\(page.body)")
        }
        #expect(try post(host: evil, [:]).status == 200)
        #expect(try post(host: "127.0.0.1:\(live.port)", ["Origin": "http://127.0.0.1:\(live.port)"]).status == 200)
        #expect(try post(host: "evil.example", ["Sec-Fetch-Site": "none"]).status == 200)
    }

    @Test func anImportWhoseClientGoesAwayGivesTheSlotBack() throws {
        let live = try LiveServer()
        let host = "127.0.0.1:\(live.port)"
        let snapshot = try live.send("GET", "/_mock/state", body: nil, headers: [:]).body
        do {
            let gone = try RawHTTPClient(port: live.port)
            try gone.send("PUT /_mock/state HTTP/1.1\r\nHost: \(host)\r\nContent-Length: 100000\r\n\r\n{\"ver")
        }
        // The closed connection is noticed by its event loop, which then drops the request and its slot.
        var status = 0
        for _ in 0..<200 {
            status = try live.send("PUT", "/_mock/state", body: snapshot, headers: [:]).status
            if status == 200 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(status == 200)
    }

    @Test func aPagesRequestRunsNoTool() throws {
        let tools = try FakeTools()
        let live = try InProcessServer.withTools(tools)
        try live.composeBoth()
        let host = "127.0.0.1:\(live.port)"
        let json = ["Host": host, "Content-Type": "application/json"]
        for headers in [["Origin": "http://evil.example"], ["Sec-Fetch-Site": "cross-site"], ["Origin": "null"]] {
            for (method, path) in [
                ("GET", "/_mock/simulators"), ("GET", "/_mock/emulators"), ("HEAD", "/_mock/emulators"),
                ("POST", "/_mock/push/1/simulator"), ("POST", "/_mock/push/2/emulator"),
            ] {
                let response = try live.request(
                    method, path, body: method == "POST" ? "{}" : nil, headers: json.merging(headers) { $1 })
                #expect(response.status == 403, "\(method) \(path) \(headers)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: tools.log))
        // The console's own requests and a URL opened by hand still run them.
        for headers in [["Origin": "http://\(host)", "Sec-Fetch-Site": "same-origin"], ["Sec-Fetch-Site": "none"]] {
            #expect(
                try live.request("GET", "/_mock/emulators", headers: headers.merging(["Host": host]) { $1 }).status
                    == 200)
        }
        #expect(try tools.calls() == [["devices"], ["devices"]])
    }

    @Test func atMostTwoToolsRunAtOnceAndTheThirdIsAnsweredAtOnce() throws {
        // Each adb run waits until the test lets it finish (a file appears), so two stay under way.
        let tools = try FakeTools()
        let release = tools.folder.path + "/release"
        let adb = tools.folder.path + "/adb"
        let script = try String(contentsOfFile: adb, encoding: .utf8)
        try script.replacingOccurrences(
            of: "if [ \"$1\" = devices ]",
            with: "while [ ! -e '\(release)' ]; do sleep 0.05; done\nif [ \"$1\" = devices ]"
        ).write(toFile: adb, atomically: true, encoding: .utf8)
        chmod(adb, 0o755)
        let live = try LiveServer.withTools(tools)

        let answers = ResultList()
        let group = DispatchGroup()
        let port = live.port
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                answers.append(
                    Result {
                        let client = try RawHTTPClient(port: port, timeoutSeconds: 60)
                        try client.send(
                            "GET /_mock/emulators HTTP/1.1\r\nHost: 127.0.0.1\r\nCampaign-Mock-Client: test\r\n"
                                + "Connection: close\r\n\r\n")
                        return try client.readResponse().status
                    })
            }
        }
        // Both runs have started when both recorded their arguments.
        while (try? tools.calls().count) ?? 0 < 2 { Thread.sleep(forTimeInterval: 0.02) }
        let third = try live.request("GET", "/_mock/emulators")
        #expect(third.status == 503)
        #expect(third.body.contains("2 xcrun or adb runs are under way"), "\(third.body)")
        #expect(try tools.calls().count == 2)

        #expect(FileManager.default.createFile(atPath: release, contents: nil))
        group.wait()
        #expect(try answers.values.map { try $0.get() } == [200, 200])
        // Once they are done, the next one runs.
        #expect(try live.request("GET", "/_mock/emulators").status == 200)
    }
}

/// Results appended from several threads.
private final class ResultList: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<Int, any Error>] = []

    func append(_ result: Result<Int, any Error>) { lock.withLock { results.append(result) } }
    var values: [Result<Int, any Error>] { lock.withLock { results } }
}
