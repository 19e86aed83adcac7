import CampaignMockHTTP
import CampaignMockNetwork
import CampaignMockSystem
import Testing

@testable import CampaignMock
@testable import CampaignMockModel
@testable import CampaignMockSOAP

@Suite struct ConfigurationTests {
    private func file(_ json: String) -> (path: String, contents: [UInt8]) {
        ("campaign-mock.json", Array(json.utf8))
    }

    @Test func defaultsServeAFirstTimeUser() throws {
        let configuration = try Configuration.resolve(flags: [:], environment: [:], configFile: nil)
        #expect(configuration.http.address.host == "127.0.0.1")
        #expect(configuration.http.address.port == 8080)
        #expect(configuration.dataDirectory == ".campaign-mock" && !configuration.inMemory)
        #expect(configuration.journalLimit == 10_000)
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheFile() throws {
        let json = file(#"{"port": 9001, "journalLimit": 7, "logLevel": "debug"}"#)
        let environment = ["CAMPAIGN_MOCK_PORT": "9002", "CAMPAIGN_MOCK_JOURNAL_LIMIT": "8"]
        let configuration = try Configuration.resolve(
            flags: ["port": "9003"], environment: environment, configFile: json)
        #expect(configuration.http.address.port == 9003)
        #expect(configuration.journalLimit == 8)
        #expect(configuration.logLevel == .debug)
    }

    @Test func readsSizesAndDurations() throws {
        let flags = [
            "maxBodySize": "2MiB", "maxHeaderSize": "16KiB", "headerTimeout": "500ms", "idleTimeout": "2m",
            "bodyTimeout": "3",
        ]
        let configuration = try Configuration.resolve(flags: flags, environment: [:], configFile: nil)
        #expect(configuration.http.limits.bodyBytes == 2 << 20)
        #expect(configuration.http.limits.headerBytes == 16 * 1024)
        #expect(configuration.http.headerTimeoutMilliseconds == 500)
        #expect(configuration.http.idleTimeoutMilliseconds == 120_000)
        #expect(configuration.http.bodyTimeoutMilliseconds == 3000)
    }

    @Test func inMemoryHasNoDatabaseFile() throws {
        let configuration = try Configuration.resolve(
            flags: [:], environment: ["CAMPAIGN_MOCK_IN_MEMORY": "true"], configFile: nil)
        #expect(configuration.inMemory)
    }

    struct BadValue: Sendable, CustomTestStringConvertible {
        let flags: [String: String]
        let environment: [String: String]
        let json: String?
        let message: String
        var testDescription: String { message }
    }

    static let badValues: [BadValue] = [
        .init(
            flags: ["port": "70000"], environment: [:], json: nil,
            message: "--port: '70000' is not a valid port number (0-65535)"),
        .init(
            flags: ["host": "example.com"], environment: [:], json: nil,
            message: "--host: 'example.com' is not a valid host"),
        .init(
            flags: [:], environment: ["CAMPAIGN_MOCK_LOG_LEVEL": "loud"], json: nil,
            message: "CAMPAIGN_MOCK_LOG_LEVEL: 'loud' is not a valid log level (trace, debug, info, warning, error)"),
        .init(
            flags: ["maxBodySize": "lots"], environment: [:], json: nil,
            message: "--max-body-size: 'lots' is not a valid size (e.g. 512, 64KiB, 1MiB)"),
        .init(
            flags: ["headerTimeout": "soon"], environment: [:], json: nil,
            message: "--header-timeout: 'soon' is not a valid duration (e.g. 500ms, 10s, 2m, 24h)"),
        .init(
            flags: ["journalLimit": "0"], environment: [:], json: nil,
            message: "--journal-limit: '0' is not a valid count (1 or more)"),
        .init(
            flags: ["journalMaxSize": "64KiB"], environment: [:], json: nil,
            message: "--journal-max-size: '64KiB' is below the journal's least size, 1MiB"),
        .init(
            flags: [:], environment: [:], json: #"{"prot": 1}"#, message: "campaign-mock.json: prot: unknown setting"),
        .init(
            flags: [:], environment: [:], json: #"{"port": [1]}"#,
            message: "campaign-mock.json: port: expected a string, number or boolean"),
        .init(
            flags: [:], environment: [:], json: "{port: 1",
            message: "campaign-mock.json: line 1, column 2: expected a key in double quotes, found 'p'"),
        .init(
            flags: [:], environment: [:], json: "{\n  \"port\": 9000\n  \"logLevel\": \"debug\"\n}",
            message: "campaign-mock.json: line 3, column 3: expected ',' or '}', found '\"'"),
        .init(
            flags: [:], environment: [:], json: "{\"port\": 1,\n}",
            message: "campaign-mock.json: line 2, column 1: a comma before '}' (JSON allows none)"),
        .init(
            flags: [:], environment: [:], json: "[1]",
            message: "campaign-mock.json: expected a JSON object of settings"),
        .init(
            flags: [:], environment: [:], json: #"{"port": 1, "port": 2}"#,
            message: "campaign-mock.json: 'port' is given twice"),
        .init(
            flags: ["operators": "nocolon"], environment: [:], json: nil,
            message: "--operator: 'nocolon' is not LOGIN:PASSWORD"),
        .init(
            flags: ["allowedHosts": "evil example"], environment: [:], json: nil,
            message: "--allowed-host: 'evil example' is not a host name"),
    ]

    @Test("a bad value is refused with a message naming its source", arguments: badValues)
    func refusesBadValues(_ example: BadValue) {
        do {
            _ = try Configuration.resolve(
                flags: example.flags, environment: example.environment, configFile: example.json.map(file))
            Issue.record("accepted")
        } catch {
            #expect(error.message.hasPrefix(example.message), "\(error.message)")
        }
    }

    @Test func readsOperatorsAndAllowedHostsAsListsFromFlagsAndTheFile() throws {
        let json = file(
            #"{"allowedHosts": ["mock.team.example", ".tunnel.example"], "operators": "ops:pw:with:colons"}"#)
        let configuration = try Configuration.resolve(
            flags: ["soapLogin": "boss", "soapPassword": "b"], environment: [:], configFile: json)
        #expect(configuration.allowedHosts == ["mock.team.example", ".tunnel.example"])
        #expect(
            configuration.soapOperators == [
                SOAPOperator(login: "boss", password: "b"), SOAPOperator(login: "ops", password: "pw:with:colons"),
            ])
        let defaults = try Configuration.resolve(flags: [:], environment: [:], configFile: nil)
        #expect(defaults.soapOperators.map(\.login) == ["admin", "mc"])
    }

    @Test func namesEverySettingThreeWays() {
        let setting = Setting.named("journalLimit")!
        #expect(setting.flag == "--journal-limit")
        #expect(setting.environmentVariable == "CAMPAIGN_MOCK_JOURNAL_LIMIT")
        #expect(Set(Setting.all.map(\.key)).count == Setting.all.count)
    }
}

@Suite struct ApplicationConfigurationTests {
    @Test func readsApplicationsFromFlagsEnvironmentAndFile() throws {
        let flags = try Configuration.resolve(
            flags: ["apps": "ios:KEY1:My App\nandroid:KEY2"], environment: [:], configFile: nil)
        #expect(
            flags.applications == [
                Application(name: "My App", platform: .ios, integrationKey: "KEY1"),
                Application(name: "Android app KEY2", platform: .android, integrationKey: "KEY2"),
            ])
        let environment = try Configuration.resolve(
            flags: [:], environment: ["CAMPAIGN_MOCK_APPS": "ios:A, android:B:Shop: the app"], configFile: nil)
        #expect(environment.applications?.map(\.name) == ["iOS app A", "Shop: the app"])

        // The fourth part is the bundle id (iOS) or package name (Android), which one-click pushes need.
        let identified = try Configuration.resolve(
            flags: ["apps": "ios:I:Shop: the app:com.example.shop\nandroid:A::com.example.shop.debug"],
            environment: [:],
            configFile: nil)
        #expect(
            identified.applications == [
                Application(name: "Shop: the app", platform: .ios, integrationKey: "I", bundleId: "com.example.shop"),
                Application(
                    name: "Android app A", platform: .android, integrationKey: "A",
                    packageName: "com.example.shop.debug"),
            ])
        let inFile = #"{"apps": ["ios:F:Shop:com.example.shop"]}"#
        #expect(
            try Configuration.resolve(flags: [:], environment: [:], configFile: ("c.json", Array(inFile.utf8)))
                .applications?.first?.bundleId == "com.example.shop")
        #expect {
            try Configuration.resolve(flags: ["apps": "ios:I:Shop:shop"], environment: [:], configFile: nil)
        } throws: { error in
            "\(error)".contains("--app") && "\(error)".contains("bundleId")
        }

        let json = #"{"apps": ["ios:F1", {"platform": "android", "integrationKey": "F2", "enabled": false}]}"#
        let file = try Configuration.resolve(flags: [:], environment: [:], configFile: ("c.json", Array(json.utf8)))
        #expect(file.applications?.map(\.integrationKey) == ["F1", "F2"])
        #expect(file.applications?.map(\.enabled) == [true, false])

        let layered = try Configuration.resolve(
            flags: [:], environment: ["CAMPAIGN_MOCK_APPS": "ios:E"], configFile: ("c.json", Array(json.utf8)))
        #expect(layered.applications?.map(\.integrationKey) == ["E"])
    }

    @Test(arguments: [
        (
            "tv:KEY",
            "--app: 'tv:KEY' is not PLATFORM:KEY[:NAME[:ID]] with PLATFORM ios or android (ID: the bundle id or "
                + "package name)"
        ),
        ("ios:", "--app: the integration key must not be empty"),
        ("ios:A,android:A", "--app: integration key 'A' is given twice"),
    ])
    func refusesBadApplications(_ value: String, _ message: String) {
        #expect(throws: ConfigurationError(message)) {
            try Configuration.resolve(flags: ["apps": value], environment: [:], configFile: nil)
        }
    }

    @Test func refusesBadApplicationObjectsInTheFile() {
        let json = #"{"apps": [{"platform": "ios", "integrationKey": "A", "colour": "red"}]}"#
        #expect(throws: ConfigurationError("c.json: apps[0]: unknown field 'colour'")) {
            try Configuration.resolve(flags: [:], environment: [:], configFile: ("c.json", Array(json.utf8)))
        }
    }

    @Test func aFaultRuleWithAnUnknownEndpointListsTheValidOnes() {
        let json = #"{"faults": [{"endpoint": "tracker", "status": 503}]}"#
        #expect(
            throws: ConfigurationError(
                "c.json: faults[0].endpoint: 'tracker' is not one of registration-ios, registration-android, "
                    + "tracking, soap, health, unknown, any")
        ) {
            try Configuration.resolve(flags: [:], environment: [:], configFile: ("c.json", Array(json.utf8)))
        }
    }
}
