import CampaignMockCore
import CampaignMockTestSupport
import Foundation
import Testing

@testable import CampaignMock

/// One file of `Fixtures/sdk/` (written by `Fixtures/make-sdk-fixtures.py`).
struct SDKFixture: Decodable, Sendable, CustomTestStringConvertible {
    struct FixtureApplication: Decodable, Sendable {
        let platform: Platform
        let integrationKey: String
        let name: String
        let enabled: Bool?
    }

    struct Exchange: Decodable, Sendable {
        struct Request: Decodable, Sendable {
            let method: String
            let target: String
            let headers: [[String]]
            let body: String
        }

        struct Response: Decodable, Sendable {
            let status: Int
            let body: String?
            let bodyPattern: String?
        }

        struct Stored: Decodable, Sendable {
            struct Device: Decodable, Sendable {
                let registrationToken: String
                let integrationKey: String
                let userKey: String
                let fields: [String: String]
                /// name → [type, value]
                let params: [String: [String]]
            }

            struct Event: Decodable, Sendable {
                let rawId: String
                let messageHex: String?
                let messageValue: String?
                let messageUuid: String?
                let deliveryId: String
                let tag: Int
            }

            let device: Device?
            let event: Event?
            let devices: Int?
        }

        let request: Request
        let response: Response
        let stored: Stored?
    }

    var file = ""
    let description: String
    let source: String
    let applications: [FixtureApplication]
    let exchanges: [Exchange]

    var testDescription: String { file }

    private enum CodingKeys: String, CodingKey {
        case description, source, applications, exchanges
    }

    /// Every fixture file, found from this source file's path.
    static let all: [SDKFixture] = {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/sdk")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.sorted().compactMap { name in
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path),
                var fixture = try? JSONDecoder().decode(SDKFixture.self, from: data)
            else { return nil }
            fixture.file = name
            return fixture
        }
    }()
}

@Suite("canonical SDK exchanges in Fixtures/sdk, replayed over real sockets", .timeLimit(.minutes(2)))
struct SDKFixtureTests {
    @Test func everyFixtureFileLoads() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/sdk")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(files.count == SDKFixture.all.count)
        #expect(files.count >= 8)
    }

    @Test(arguments: SDKFixture.all)
    func replays(_ fixture: SDKFixture) throws {
        let live = try LiveServer(inMemory: true) { configuration in
            configuration.applications = fixture.applications.map {
                Application(
                    name: $0.name, platform: $0.platform, integrationKey: $0.integrationKey, enabled: $0.enabled ?? true
                )
            }
        }
        for exchange in fixture.exchanges {
            let request = exchange.request
            let client = try RawHTTPClient(port: live.port)
            var head = "\(request.method) \(request.target) HTTP/1.1\r\nHost: fixture\r\n"
            for header in request.headers { head += "\(header[0]): \(header[1])\r\n" }
            if request.method != "GET" { head += "Content-Length: \(request.body.utf8.count)\r\n" }
            try client.send(head + "\r\n" + request.body)
            let response = try client.readResponse()

            #expect(response.status == exchange.response.status, "\(request.target)")
            if let body = exchange.response.body {
                #expect(response.text == body)
            }
            if let pattern = exchange.response.bodyPattern {
                #expect(response.text.range(of: pattern, options: .regularExpression) != nil, "\(response.text)")
            }
            try check(exchange.stored, in: live)
        }
    }

    private func check(_ stored: SDKFixture.Exchange.Stored?, in live: LiveServer) throws {
        guard let stored else { return }
        if let count = stored.devices {
            #expect(try live.storedRows()[0] == Int64(count))
        }
        if let expected = stored.device {
            let device = try #require(
                try live.server.store.read {
                    try $0.devices(token: expected.registrationToken, applicationKey: expected.integrationKey).first
                })
            #expect(device.userKey == expected.userKey)
            let fields = device.device
            let actual: [String: String?] = [
                "deviceImei": fields.deviceImei, "deviceName": fields.deviceName, "deviceModel": fields.deviceModel,
                "deviceBrand": fields.deviceBrand, "deviceManufacturer": fields.deviceManufacturer,
                "osName": fields.osName, "osVersion": fields.osVersion, "osLanguage": fields.osLanguage,
            ]
            #expect(actual.compactMapValues { $0 } == expected.fields)
            let params = Dictionary(
                uniqueKeysWithValues: device.params.map { ($0.name, [$0.kind.rawValue, $0.value]) })
            #expect(params == expected.params)
        }
        if let expected = stored.event {
            let event = try #require(
                try live.server.store.read { try $0.events(matching: EventFilter(), after: 0, limit: 1000) }.events.last
            )
            #expect(event.rawId == expected.rawId)
            #expect(event.messageHex == expected.messageHex)
            #expect(event.messageValue == expected.messageValue)
            #expect(event.messageUuid == expected.messageUuid)
            #expect(event.deliveryId == expected.deliveryId)
            #expect(event.tag == expected.tag)
        }
    }
}
