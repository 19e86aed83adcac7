import CampaignMockSystem
import Testing

@testable import CampaignMock

@Suite struct ServeArgumentsTests {
    @Test func readsValuesSwitchesAndRepeatedFlags() throws {
        let given = try ServeArguments(parsing: [
            "--port", "9000", "--journal-limit=500", "--in-memory", "--app", "ios:K1", "--app=android:K2:Two",
            "--config", "mock.json", "--admin-token=--begins-with-dashes",
        ])
        #expect(
            given.flags == [
                "port": "9000", "journalLimit": "500", "inMemory": "true", "apps": "ios:K1\nandroid:K2:Two",
                "adminToken": "--begins-with-dashes",
            ])
        #expect(given.configFile == "mock.json")
    }

    @Test func theLastValueOfASingleFlagWins() throws {
        #expect(try ServeArguments(parsing: ["--port", "1", "--port", "2"]).flags == ["port": "2"])
    }

    @Test func everySettingIsReadUnderItsFlag() throws {
        for setting in Setting.all {
            let arguments = setting.form == .switch ? [setting.flag] : [setting.flag, "x"]
            let given = try ServeArguments(parsing: arguments)
            #expect(given.flags[setting.key] == (setting.form == .switch ? "true" : "x"), "\(setting.flag)")
        }
    }

    @Test(
        "a bad command line is refused with a message naming the argument",
        arguments: [
            (["--no-such-flag"], "unknown option '--no-such-flag'"),
            (["--prot", "9000"], "unknown option '--prot' (did you mean --port?)"),
            (["--journal-limt", "9"], "unknown option '--journal-limt' (did you mean --journal-limit?)"),
            (["--alowed-host", "x"], "unknown option '--alowed-host' (did you mean --allowed-host?)"),
            (["--no-such-flag=1"], "unknown option '--no-such-flag'"),
            (["--port"], "--port needs a value"),
            (["--record", "--no-redact"], "--record needs a value"),
            (["--in-memory=false"], "--in-memory takes no value"),
            (["9000"], "unexpected argument '9000'"),
            (["-p", "9000"], "unexpected argument '-p'"),
        ])
    func refusesABadCommandLine(arguments: [String], message: String) {
        #expect(throws: ConfigurationError.self) { try ServeArguments(parsing: arguments) }
        do {
            _ = try ServeArguments(parsing: arguments)
        } catch {
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    @Test func aCommandLineOfServesAloneSkipsTheCommandParser() {
        #expect(ServeArguments.serveOnly([]) == [])
        #expect(ServeArguments.serveOnly(["serve"]) == [])
        #expect(ServeArguments.serveOnly(["serve", "--port", "0"]) == ["--port", "0"])
        #expect(ServeArguments.serveOnly(["--port=0", "--in-memory"]) == ["--port=0", "--in-memory"])
        #expect(ServeArguments.serveOnly(["serve", "--config", "a.json"]) == ["--config", "a.json"])
        // Another command, help, the version, or a flag serve does not know: the command parser answers.
        #expect(ServeArguments.serveOnly(["push", "--title", "x"]) == nil)
        #expect(ServeArguments.serveOnly(["serve", "--help"]) == nil)
        #expect(ServeArguments.serveOnly(["serve", "-h"]) == nil)
        #expect(ServeArguments.serveOnly(["--version"]) == nil)
        #expect(ServeArguments.serveOnly(["serve", "--no-such-flag"]) == nil)
    }

    @Test func theHelpListsEveryFlagAndVariableWithinSeventyEightColumns() {
        for setting in Setting.all {
            #expect(ServeArguments.help.contains("  \(setting.flag)"), "\(setting.flag)")
            #expect(ServeArguments.help.contains("[env: \(setting.environmentVariable)]"), "\(setting.key)")
        }
        #expect(ServeArguments.help.contains("  --config <file>"))
        for line in ServeArguments.help.split(separator: "\n") {
            #expect(line.utf8.count <= 78, "\(line)")
        }
    }
}
