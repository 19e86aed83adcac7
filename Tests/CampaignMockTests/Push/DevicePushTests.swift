import CampaignMockHTTP
import CampaignMockModel
import CampaignMockSupport
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockPush

/// A folder of fake `xcrun` and `adb` (shell scripts) that the server finds as it would find the real
/// ones on PATH. Each records its argument vector to `log`, as a record: words ended by NUL, the record by
/// RS (0x1E), so a word may hold any text, newlines too.
///
/// The fake `adb shell` does what adb and the device do: it joins its arguments with spaces and runs the
/// line with `sh -c`, whose PATH is `device/`: fake `am` and `cmd` that record their words, and `reboot`,
/// `a`, `b`, `c`, `id`, `touch` that record theirs too, should a line ever run them. What that shell prints
/// on stderr (`not found`, a syntax error) goes to `deviceErrors`.
final class FakeTools {
    let folder = TemporaryDirectory()
    var log: String { folder.path + "/log" }
    var deviceErrors: String { folder.path + "/device-stderr" }

    /// `xcrun`: records the `.apns` file of `simctl push` too (its mode and its content); `body` then runs.
    init(xcrun: String? = "echo pushed", adb: String? = "echo 'Broadcast completed: result=0'") throws {
        let record = """
            #!/bin/sh
            log='\(log)'
            record() { printf '%s\\000' "$@" >> "$log"; printf '\\036' >> "$log"; }
            record argv "$@"

            """
        if let xcrun {
            try write(
                "xcrun",
                record + """
                    if [ "$1 $2" = "simctl push" ]; then
                        record mode "$(ls -l "$5" | cut -c1-10)"
                        cat "$5" > '\(folder.path)/apns'
                    fi
                    if [ "$1 $2" = "simctl list" ]; then
                        echo '{"devices": {"com.apple.CoreSimulator.SimRuntime.iOS-18-2": [
                            {"udid": "6C2A9D1E-0000-4000-8000-000000000001", "name": "iPhone 16", "state": "Booted"}]}}'
                        exit 0
                    fi
                    \(xcrun)

                    """)
        }
        if let adb {
            try FileManager.default.createDirectory(atPath: folder.path + "/device", withIntermediateDirectories: true)
            for command in ["am", "cmd", "reboot", "a", "b", "c", "id", "touch"] {
                try write("device/" + command, record.replacing("record argv", with: "record words \"${0##*/}\""))
            }
            try write(
                "adb",
                record + """
                    if [ "$1" = devices ]; then printf 'List of devices attached\\nemulator-5554\\tdevice\\n\\n'; exit 0; fi
                    if [ "$1" = -s ]; then shift 2; fi
                    if [ "$1" = shell ]; then
                        shift
                        PATH='\(folder.path)/device' /bin/sh -c "$*" 2>> '\(deviceErrors)'
                    fi
                    \(adb)

                    """)
        }
    }

    private func write(_ name: String, _ script: String) throws {
        let path = folder.path + "/" + name
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }

    /// The argument vectors recorded, in order.
    func calls() throws -> [[String]] { try records("argv") }
    /// The commands the fake device shell ran, each with its words (`am`, `broadcast`, …), in order.
    func words() throws -> [[String]] { try records("words") }
    /// The `.apns` file's mode as `ls -l` shows it, once per `simctl push`.
    func modes() throws -> [String] { try records("mode").map { $0.first ?? "" } }
    /// What the fake device shell wrote on stderr.
    func deviceStderr() -> String { (try? String(contentsOfFile: deviceErrors, encoding: .utf8)) ?? "" }

    /// The records of `kind` a fake wrote (`record KIND WORD…` in its script).
    func records(_ kind: String) throws -> [[String]] {
        guard FileManager.default.fileExists(atPath: log) else { return [] }
        let text = try String(contentsOfFile: log, encoding: .utf8)
        return text.split(separator: "\u{1E}").compactMap { record in
            let words = record.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
            return words.first == kind ? Array(words.dropFirst()) : nil
        }
    }

    func apnsFile() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/apns"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }
}

extension TestServer {
    /// A server with the SDK applications, `tools` as the only folder it looks in (nil: none), and a timeout.
    static func withTools(_ tools: FakeTools?, timeoutMilliseconds: Int = 15_000) throws -> Self {
        try withSDKApplications { configuration in
            configuration.toolEnvironment = tools.map { ["PATH": $0.folder.path] } ?? [:]
            configuration.deviceToolTimeoutMilliseconds = timeoutMilliseconds
        }
    }

    /// Registers the SDK's iOS and Android devices and composes one push for each (ids 1 and 2).
    func composeBoth(_ extra: String = "") throws {
        #expect(try register(.ios, SDKBodies.iOS).status == 200)
        #expect(try register(.android, SDKBodies.android).status == 200)
        let text = #""title":"Sale","body":"it's 20% off; $(touch /tmp/campaign-mock-pwned) `id`""#
        #expect(
            try json("POST", "/_mock/push", body: #"{"token":"70757368546f6b656e",\#(text)\#(extra)}"#).status == 201)
        #expect(try json("POST", "/_mock/push", body: #"{"token":"testToken",\#(text)\#(extra)}"#).status == 201)
    }
}

#if os(Linux)
    /// Whether process `pid` is gone, or a zombie its new parent has not reaped yet: not running on. SIGKILL
    /// reaches a process asynchronously, so it is given until its stat says so (a `sleep 60` never would).
    func processEnds(_ pid: Int32) -> Bool {
        func state() -> Substring? {
            (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?
                .split(separator: ")").last?.split(separator: " ").first
        }
        let patience = Date().addingTimeInterval(10)
        while let now = state(), now != "Z", Date() < patience { usleep(10_000) }
        return state() == nil || state() == "Z"
    }
#endif

@Suite("pushes to a simulator or an emulator of this machine", .timeLimit(.minutes(2)))
struct DevicePushTests {
    @Test func pushesToTheSimulatorWithSimctlAndAnOwnerOnlyFile() throws {
        let tools = try FakeTools()
        let live = try InProcessServer.withTools(tools)
        #expect(
            try live.json("PUT", "/_mock/apps/integrationKey", body: #"{"bundleId":"com.example.shop"}"#).status == 200)
        try live.composeBoth()
        let info = try live.json("GET", "/_mock/info").object["tools"] as? [String: Any]
        #expect(info?["xcrun"] as? String == tools.folder.path + "/xcrun")
        #expect(info?["adb"] as? String == tools.folder.path + "/adb")
        #expect(info?["lookup"] as? [String: String] == ["xcrun": "found on PATH", "adb": "found on PATH"])

        let answer = try live.json("POST", "/_mock/push/1/simulator", body: #"{"device":"booted"}"#)
        #expect(answer.status == 200)
        #expect(answer.object["outcome"] as? String == "succeeded")
        #expect(answer.object["exitStatus"] as? Int == 0)
        #expect(answer.object["stdout"] as? String == "pushed\n")
        let call = try #require(try tools.calls().first)
        #expect(call.dropLast() == ["simctl", "push", "booted", "com.example.shop"])
        let file = try #require(call.last)
        #expect(file.hasSuffix("/campaign-mock-1000001.apns"))
        #expect(
            answer.object["command"] as? String
                == "\(tools.folder.path)/xcrun simctl push booted com.example.shop \(file)")
        #expect(try tools.modes() == ["-rw-------"])  // owner-only
        #expect(!FileManager.default.fileExists(atPath: file))  // and gone once pushed
        let apns = try tools.apnsFile()
        #expect(apns["Simulator Target Bundle"] as? String == "com.example.shop")
        #expect(apns["_mId"] as? String == "1000001")
        #expect(
            (apns["aps"] as? [String: Any])?["alert"] as? [String: String]
                == ["title": "Sale", "body": "it's 20% off; $(touch /tmp/campaign-mock-pwned) `id`"])

        // A UDID, and the message named by its token.
        let udid = "6C2A9D1E-0000-4000-8000-000000000001"
        let named = try live.json(
            "POST", "/_mock/push/1/simulator", body: #"{"registrationToken":"70757368546f6b656e","device":"\#(udid)"}"#)
        #expect(named.status == 200)
        #expect(try tools.calls().last?[2] == udid)
    }

    @Test func sendsTheBroadcastToTheEmulatorQuotedForItsShell() throws {
        let tools = try FakeTools()
        let live = try InProcessServer.withTools(tools)
        try live.composeBoth(#","androidPackage":"com.example.shop","variables":{"deep link":"app://x?a=1&b=2"}"#)
        let answer = try live.json("POST", "/_mock/push/2/emulator", body: #"{"serial":"emulator-5554"}"#)
        #expect(answer.status == 200)
        #expect(answer.object["stdout"] as? String == "Broadcast completed: result=0\n")
        let call = try #require(try tools.calls().first)
        #expect(call.prefix(3) == ["-s", "emulator-5554", "shell"])
        #expect(call.count == 4)  // one line for the device's shell
        let text = "it's 20% off; $(touch /tmp/campaign-mock-pwned) `id`"
        #expect(
            try tools.words().first == [
                "am", "broadcast", "-a", "com.google.android.c2dm.intent.RECEIVE", "-p", "com.example.shop",
                "--es", "_dId", "7a002", "--es", "_mId", "1000002", "--es", "_msg", text, "--es", "adb_body", text,
                "--es", "adb_title", "Sale", "--es", "deep link", "app://x?a=1&b=2", "--es", "title", "Sale",
            ])
        #expect(!FileManager.default.fileExists(atPath: "/tmp/campaign-mock-pwned"))
        // The line the answer shows is the line the composer gives to paste.
        let push = try live.json("GET", "/_mock/push/2").object
        let adb = try #require(((push["messages"] as? [[String: Any]])?.first?["adb"] as? [String])?.first)
        #expect(
            answer.object["command"] as? String
                == "\(tools.folder.path)/adb -s emulator-5554 shell " + adb.dropFirst("adb shell ".count))

        // Without a serial, adb picks the only device.
        #expect(try live.json("POST", "/_mock/push/2/emulator").status == 200)
        #expect(try tools.calls().last?.first == "shell")
    }

    /// Text that a shell would run, split or expand if a line quoted it for one shell only.
    static let hostile = [
        "Don't miss; am start -a android.intent.action.VIEW -d https://evil.example", "$(reboot)",
        "a && b | c > /sdcard/x", #"she said "hi" and 'bye'"#, #"back\slash \' \" \\ end\"#,
        "line one\nline two; reboot", "`id` ${HOME} $HOME * ~", "-n com.other/.Receiver", "",
    ]

    /// Both ways onto the emulator: the one-click endpoint, and each line the composer gives to paste, run by
    /// this machine's `sh -c` then the fake adb and the fake device shell. `am` and `cmd` get exactly the
    /// words of the push, and nothing else runs.
    @Test func theAdbLinesGiveTheDeviceExactlyThePushesWordsThroughBothShells() throws {
        let tools = try FakeTools()
        let live = try InProcessServer.withTools(tools)
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        let hostile = Self.hostile
        var variables = Dictionary(uniqueKeysWithValues: hostile.indices.map { ("v\($0)", hostile[$0]) })
        for (index, key) in ["$(reboot)", "x y; id", "-n", "it's"].enumerated() { variables[key] = hostile[index] }
        let request = PushRequest(
            token: "testToken", title: hostile[0], body: hostile[1], variables: variables,
            androidPackage: "com.example.shop")
        let body = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        let composed = try live.json("POST", "/_mock/push", body: body)
        #expect(composed.status == 201)
        let message = try #require((composed.object["messages"] as? [[String: Any]])?.first)
        let lines = try #require(message["adb"] as? [String])
        #expect(lines.count == 2)

        var data = variables
        data.merge(["_mId": "1000001", "_dId": "7a001", "title": hostile[0], "adb_title": hostile[0]]) { $1 }
        data.merge(["_msg": hostile[1], "adb_body": hostile[1]]) { $1 }
        let broadcast =
            ["am", "broadcast", "-a", "com.google.android.c2dm.intent.RECEIVE", "-p", "com.example.shop"]
            + data.keys.sorted().flatMap { ["--es", $0, data[$0]!] }
        let notification = ["cmd", "notification", "post", "-t", hostile[0], "campaign-mock-1000001", hostile[1]]

        let answer = try live.json("POST", "/_mock/push/1/emulator")
        #expect(answer.status == 200)
        #expect(try tools.words() == [broadcast])

        for line in lines {
            let pasted = try runProcess(
                "/bin/sh", ["-c", line], environment: ["PATH": tools.folder.path + ":/usr/bin:/bin"])
            #expect(pasted.code == 0, "\(line)\n\(pasted.error)")
        }
        #expect(try tools.words() == [broadcast, broadcast, notification])
        #expect(tools.deviceStderr() == "")
        #expect(!FileManager.default.fileExists(atPath: "/sdcard/x"))
    }

    @Test func anEmptyVariableKeyIsRefused() throws {
        let live = try InProcessServer.withTools(nil)
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        let answer = try live.json(
            "POST", "/_mock/push",
            body: #"{"token":"testToken","title":"T","variables":{"":"x","-n":"com.other/.Receiver"}}"#)
        #expect(answer.status == 400)
        #expect(answer.object["error"] as? String == "a variable's key is empty: every payload key needs a name")
        #expect(try live.json("GET", "/_mock/push/1").status == 404)  // nothing composed
    }

    /// A NUL would end the tool's C string early: the device would run something other than the line shown.
    @Test func aNULInAPushsTextIsRefused() throws {
        let live = try InProcessServer.withTools(nil)
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        for field in [
            #""title":"a\u0000b""#, #""title":"T","variables":{"k":"a\u0000b"}"#,
            #""title":"T","variables":{"k\u0000":"x"}"#,
        ] {
            let answer = try live.json("POST", "/_mock/push", body: #"{"token":"testToken","# + field + "}")
            #expect(answer.status == 400, "\(field)")
            #expect((answer.object["error"] as? String)?.contains("NUL character") == true, "\(field)")
        }
        #expect(try live.json("GET", "/_mock/push/1").status == 404)  // nothing composed
    }

    @Test func aToolThatFailsIsReportedAsAFailure() throws {
        let tools = try FakeTools(xcrun: "echo 'Invalid device: booted' >&2; exit 1", adb: "exit 3")
        let live = try InProcessServer.withTools(tools)
        try live.composeBoth(#","bundleId":"com.example.shop","androidPackage":"com.example.shop""#)
        let simulator = try live.json("POST", "/_mock/push/1/simulator")
        #expect(simulator.status == 502)
        #expect(simulator.object["outcome"] as? String == "failed")
        #expect(simulator.object["exitStatus"] as? Int == 1)
        #expect(simulator.object["stderr"] as? String == "Invalid device: booted\n")
        #expect(simulator.object["error"] as? String == "xcrun exited with status 1")
        let emulator = try live.json("POST", "/_mock/push/2/emulator")
        #expect(emulator.status == 502)
        #expect(emulator.object["exitStatus"] as? Int == 3)
    }

    @Test func aToolStillRunningAtTheTimeoutIsStopped() throws {
        // It starts a child of its own, which is stopped with it (its process group).
        let tools = try FakeTools(xcrun: #"sleep 60 & record child $!; wait"#)
        let live = try InProcessServer.withTools(tools, timeoutMilliseconds: 300)
        try live.composeBoth(#","bundleId":"com.example.shop""#)
        let started = Date()
        let answer = try live.json("POST", "/_mock/push/1/simulator")
        #expect(answer.status == 504)
        #expect(answer.object["outcome"] as? String == "timed-out")
        #expect(answer.object["exitStatus"] == nil)
        #expect(answer.object["error"] as? String == "xcrun was still running after 300 ms and was stopped")
        #expect(Date().timeIntervalSince(started) < 10)
        #if os(Linux)
            let child = try #require(try tools.records("child").first?.first.flatMap { Int32($0) })
            #expect(processEnds(child), "the tool's child \(child) still runs")
        #endif
    }

    @Test func keepsTheFirst64KiBOfOutputAndSaysWhenAToolCannotStart() {
        let run = ToolProcess.run(
            ["/bin/sh", "-c", "head -c 100000 /dev/zero | tr '\\0' a; echo oops >&2"], timeoutMilliseconds: 10_000,
            in: RunningTools())
        #expect(run.outcome == .succeeded)
        #expect(run.stdout == String(repeating: "a", count: 65536))
        #expect(run.stderr == "oops\n")
        #expect(run.outputTruncated)
        let missing = ToolProcess.run(
            ["/nonexistent/xcrun", "simctl"], timeoutMilliseconds: 10_000, in: RunningTools())
        #expect(missing.outcome == .notStarted)
        #expect(missing.error == "could not start /nonexistent/xcrun: No such file or directory")
        #expect(missing.command == "/nonexistent/xcrun simctl")
    }

    @Test func withoutTheToolsTheConsoleOffersNothingAndTheCallsAnswer503() throws {
        let live = try InProcessServer.withTools(nil)
        try live.composeBoth(#","bundleId":"com.example.shop","androidPackage":"com.example.shop""#)
        let tools = try #require(try live.json("GET", "/_mock/info").object["tools"] as? [String: Any])
        #expect(tools["xcrun"] == nil && tools["adb"] == nil)
        let lookup = try #require(tools["lookup"] as? [String: String])
        #expect(
            lookup["xcrun"]
                == "not found at start: looked on PATH (no absolute folder in it); it comes with Xcode, on macOS")
        // The 503 says where the tool was looked for and what to do without it.
        let instead = [
            "xcrun": "without it, write the file with campaign-mock push --token T --format simctl --out F and run "
                + "the printed xcrun line on a Mac",
            "adb": "without it, print the adb lines with campaign-mock push --token T --format json and run them "
                + "where adb reaches the emulator",
        ]
        for (path, tool) in [
            ("/_mock/push/1/simulator", "xcrun"), ("/_mock/push/2/emulator", "adb"), ("/_mock/simulators", "xcrun"),
            ("/_mock/emulators", "adb"),
        ] {
            let answer = try live.json(path.hasPrefix("/_mock/push") ? "POST" : "GET", path)
            #expect(answer.status == 503)
            #expect(answer.object["error"] as? String == "\(tool) was \(lookup[tool] ?? ""); \(instead[tool] ?? "")")
        }
    }

    @Test func refusesWhatItCannotRun() throws {
        let tools = try FakeTools()
        let live = try InProcessServer.withTools(tools)
        try live.composeBoth()
        let cases: [(String, String?, Int, String)] = [
            ("/_mock/push/9/simulator", nil, 404, "no push with id '9'"),
            ("/_mock/push/x/emulator", nil, 404, "no push with id 'x'"),
            (
                "/_mock/push/1/simulator", #"{"registrationToken":"nope"}"#, 404,
                "push 1 has no message for registration token 'nope'"
            ),
            ("/_mock/push/2/simulator", nil, 409, "push 2 has no iOS message"),
            (
                "/_mock/push/1/emulator", #"{"registrationToken":"70757368546f6b656e"}"#, 409,
                "the message for '70757368546f6b656e' is not an Android message"
            ),
            (
                "/_mock/push/1/simulator", nil, 409,
                "no bundle id for integrationKey: set the application's bundleId (PUT /_mock/apps/integrationKey) "
                    + "or compose the push with one"
            ),
            (
                "/_mock/push/2/emulator", nil, 409,
                "no package name for testIntegrationKey: set the application's packageName "
                    + "(PUT /_mock/apps/testIntegrationKey) or compose the push with androidPackage"
            ),
            (
                "/_mock/push/1/simulator", #"{"device":"booted; rm -rf /"}"#, 400,
                "device must be \"booted\" or a simulator's UDID, got 'booted; rm -rf /'"
            ),
            (
                "/_mock/push/2/emulator", #"{"serial":"-a"}"#, 400,
                "serial '-a' is not an adb serial (emulator-5554, HOST:PORT)"
            ),
            ("/_mock/push/1/simulator", #"{"udid":"x"}"#, 400, "unknown field 'udid'"),
        ]
        for (path, body, status, message) in cases {
            let answer = try live.json("POST", path, body: body)
            #expect(answer.status == status, "\(path) \(body ?? "")")
            #expect(answer.object["error"] as? String == message)
        }
        // The application's bundle id, set after the push was composed, is used.
        #expect(
            try live.json("PUT", "/_mock/apps/integrationKey", body: #"{"bundleId":"com.example.later"}"#).status == 200
        )
        #expect(try live.json("POST", "/_mock/push/1/simulator").status == 200)
        #expect(try tools.calls().map { $0[3] } == ["com.example.later"])
    }

    @Test func aPushToSeveralDevicesNeedsTheToken() throws {
        let tools = try FakeTools()
        let live = try InProcessServer.withTools(tools)
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let second = SDKBodies.iOS.replacingOccurrences(of: "70757368546f6b656e", with: "c0ffee")
        #expect(try live.register(.ios, second).status == 200)
        #expect(
            try live.json("POST", "/_mock/push", body: #"{"userKey":"userkey","app":"integrationKey","title":"T"}"#)
                .status == 201)
        let answer = try live.json("POST", "/_mock/push/1/simulator", body: #"{"registrationToken":"c0ffee"}"#)
        #expect(answer.status == 409)  // found, but no bundle id yet: the token chose the message
        let both = try live.json("POST", "/_mock/push/1/simulator")
        #expect(both.status == 400)
        #expect(both.object["error"] as? String == "push 1 has 2 iOS messages: say which with registrationToken")
    }

    @Test func listsBootedSimulatorsAndEmulators() throws {
        let tools = try FakeTools()
        let live = try InProcessServer.withTools(tools)
        let simulators = try live.json("GET", "/_mock/simulators")
        #expect(simulators.status == 200)
        #expect(
            simulators.object["simulators"] as? [[String: String]] == [
                [
                    "udid": "6C2A9D1E-0000-4000-8000-000000000001", "name": "iPhone 16",
                    "runtime": "com.apple.CoreSimulator.SimRuntime.iOS-18-2", "state": "Booted",
                ]
            ])
        let emulators = try live.json("GET", "/_mock/emulators")
        #expect(
            emulators.object["emulators"] as? [[String: String]] == [["serial": "emulator-5554", "state": "device"]])
        #expect(try tools.calls() == [["simctl", "list", "devices", "booted", "-j"], ["devices"]])
    }

    @Test(arguments: [
        ("com.example.app", "com.example.app"), ("/tmp/a b.apns", "'/tmp/a b.apns'"), ("", "''"),
        ("it's", #"'it'\''s'"#), ("$(id)", "'$(id)'"), ("a=1,b:2@3%+", "a=1,b:2@3%+"),
        // zsh expands a word that starts with `=` to a command's path.
        ("=ls", "'=ls'"),
    ])
    func quotesWordsForAShell(_ word: String, _ quoted: String) {
        #expect(ShellWords.quote(word) == quoted)
    }
}
