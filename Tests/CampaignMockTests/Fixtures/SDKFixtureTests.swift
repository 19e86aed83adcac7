import CampaignMockHTTP
import CampaignMockNetwork
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockChecks
@testable import CampaignMockModel
@testable import CampaignMockRecording
@testable import CampaignMockStorage

/// One scenario of `Fixtures/sdk/` (written by `Fixtures/make-sdk-fixtures.py`): exchange files in the
/// recording format, and `scenario.json` with the applications and what the store holds after each.
struct SDKScenario: Decodable, Sendable, CustomTestStringConvertible {
    struct FixtureApplication: Decodable, Sendable {
        let platform: Platform
        let integrationKey: String
        let name: String
        let enabled: Bool?
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

        /// The exchange it follows.
        let sequence: Int
        let device: Device?
        let event: Event?
        let devices: Int?
    }

    var name = ""
    var directory = ""
    let description: String
    let source: String
    let applications: [FixtureApplication]
    let stored: [Stored]

    var testDescription: String { name }

    private enum CodingKeys: String, CodingKey {
        case description, source, applications, stored
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/sdk").path

    /// Every scenario directory.
    static let all: [SDKScenario] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.sorted().compactMap { name in
            let directory = root + "/" + name
            guard let data = FileManager.default.contents(atPath: directory + "/scenario.json"),
                var scenario = try? JSONDecoder().decode(SDKScenario.self, from: data)
            else { return nil }
            scenario.name = name
            scenario.directory = directory
            return scenario
        }
    }()
}

@Suite("canonical SDK exchanges in Fixtures/sdk, replayed over real sockets", .timeLimit(.minutes(2)))
struct SDKFixtureTests {
    @Test func everyScenarioLoads() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: SDKScenario.root)
        #expect(names.count == SDKScenario.all.count)
        #expect(names.count >= 8)
        for scenario in SDKScenario.all {
            let files = ExchangeFiles.list(scenario.directory)
            #expect(!files.isEmpty, "\(scenario.name) has no exchanges")
            for file in files { _ = try Exchange.read(path: file) }
        }
    }

    @Test(arguments: SDKScenario.all)
    func replays(_ scenario: SDKScenario) throws {
        let live = try LiveServer(inMemory: true) { configuration in
            configuration.applications = scenario.applications.map {
                Application(
                    name: $0.name, platform: $0.platform, integrationKey: $0.integrationKey, enabled: $0.enabled ?? true
                )
            }
        }
        var replayer = Replayer(
            target: try HTTPClient.Endpoint(url: "http://127.0.0.1:\(live.port)"), bindings: Bindings(),
            ignoredHeaders: [], tls: nil)
        for file in ExchangeFiles.list(scenario.directory) {
            let exchange = try Exchange.read(path: file)
            let result = replayer.replay(exchange, file: file)
            #expect(result.passed, "\(Replayer.report(result))")
            for stored in scenario.stored where stored.sequence == exchange.sequence {
                try check(stored, in: live)
            }
        }
        // The SDKs' own requests integrate without an error finding (docs/checks.md), but the refusals
        // that scenario makes on purpose.
        let errors = live.app.checks.report(.init(minimum: .error)).findings.map(\.rule)
        #expect(Set(errors) == (scenario.name == "registration-refusals" ? ["registration-refused"] : []))
    }

    private func check(_ stored: SDKScenario.Stored, in live: LiveServer) throws {
        if let count = stored.devices {
            #expect(try live.storedRows()[0] == Int64(count))
        }
        if let expected = stored.device {
            let device = try #require(
                try live.app.store.read {
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
                try live.app.store.read { try $0.events(matching: EventFilter(), after: 0, limit: 1000) }.events.last
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
