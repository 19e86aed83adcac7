import CampaignMockHTTP
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockModel
@testable import CampaignMockRecording
@testable import CampaignMockSupport

/// The parts of a recording that must not depend on which server answered: everything but timings,
/// the Host header (each server has its port), the times inside bodies, and the order of the request
/// headers (the test client sends them from a dictionary).
private func comparable(_ directory: String) throws -> [String] {
    try ExchangeFiles.list(directory).map { file in
        var exchange = try Exchange.read(path: file)
        exchange.recordedAt = ""
        exchange.durationMilliseconds = 0
        exchange.request.headers = exchange.request.headers.filter { !$0.lowercased().hasPrefix("host:") }.sorted()
        let text = exchange.fileText
        return text.replacing(#/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?Z?/#, with: "<time>")
    }
}

@Suite("serve --upstream", .timeLimit(.minutes(2)))
struct UpstreamProxyTests {
    @Test func aRecordingThroughTheProxyEqualsOneMadeDirectly() throws {
        let directory = TemporaryDirectory()
        let upstream = try LiveServer.withSDKApplications()
        let proxy = try LiveServer.recording(into: directory.path + "/proxied") { configuration in
            configuration.upstream = "http://127.0.0.1:\(upstream.port)"
            configuration.applications = []
        }
        try proxy.sendSDKSession()
        let direct = try LiveServer.recording(into: directory.path + "/direct")
        try direct.sendSDKSession()

        let proxied = try comparable(directory.path + "/proxied")
        #expect(proxied.count == 8)
        let directly = try comparable(directory.path + "/direct")
        for (one, other) in zip(proxied, directly) where one != other {
            Issue.record("through the proxy:\n\(one)\ndirectly:\n\(other)")
        }
        // The upstream stored the traffic; the proxy's own store was not touched.
        #expect(try upstream.json("GET", "/_mock/devices").object["devices"] as? [Any] != nil)
        #expect((try upstream.json("GET", "/_mock/devices").object["devices"] as? [Any])?.count == 2)
        #expect((try proxy.json("GET", "/_mock/devices").object["devices"] as? [Any])?.count == 0)
        #expect((try proxy.json("GET", "/_mock/requests").object["requests"] as? [Any])?.count == 0)
    }

    @Test func forwardsOverVerifiedHTTPS() throws {
        let upstreamData = TemporaryDirectory()
        let upstream = try LiveServer(directory: upstreamData) { configuration in
            configuration.applications = SDKBodies.applications
            configuration.tls = "auto"
            configuration.tlsPort = 0
            configuration.certificateAuthorityFolder = upstreamData.path + "/ca"
        }
        let authority = try LocalCertificateAuthority(folder: upstreamData.path + "/ca")
        let caFile = upstreamData.path + "/ca.pem"
        #expect(FileManager.default.createFile(atPath: caFile, contents: Data(authority.certificatePEM)))
        let tlsPort = try #require(upstream.server.tlsAddress?.port)

        let proxy = try LiveServer(inMemory: true) { configuration in
            configuration.upstream = "https://localhost:\(tlsPort)"
            configuration.upstreamCAFile = caFile
        }
        #expect(try proxy.register(.ios, SDKBodies.iOS).status == 200)
        #expect(try upstream.json("GET", "/_mock/devices").object["devices"] as? [Any] != nil)
        #expect((try upstream.json("GET", "/_mock/devices").object["devices"] as? [Any])?.count == 1)

        // Without the CA, the upstream's certificate is not trusted: 502 with the reason.
        let untrusting = try LiveServer(inMemory: true) { configuration in
            configuration.upstream = "https://localhost:\(tlsPort)"
        }
        let refused = try untrusting.register(.ios, SDKBodies.iOS)
        #expect(refused.status == 502)
        #expect(refused.body.contains("certificate"), "\(refused.body)")
    }

    @Test func anUnreachableUpstreamIsABadGateway() throws {
        let closed = try LiveServer(inMemory: true)
        let port = closed.port
        closed.server.shutdown()
        let proxy = try LiveServer(inMemory: true) { $0.upstream = "http://127.0.0.1:\(port)" }
        let response = try proxy.request("GET", "/nl/jsp/ping.jsp")
        #expect(response.status == 502)
        #expect(response.body.hasPrefix("upstream 127.0.0.1:\(port): cannot connect"))
        #expect(try proxy.request("GET", "/_mock/health").status == 200)
    }
}
