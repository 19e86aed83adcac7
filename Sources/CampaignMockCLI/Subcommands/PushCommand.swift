import ArgumentParser
import CampaignMockHTTP
import CampaignMockModel
import CampaignMockNetwork
import CampaignMockSupport
import CampaignMockSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `campaign-mock push`: compose a notification on a running server (`POST /_mock/push`) and print it
/// in the form a simulator, an emulator or a script needs.
struct PushCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Compose a push for a registered device on a running server.",
        discussion: """
            Formats: json (the whole answer), apns (the .apns file), simctl (writes --out as the .apns file and \
            prints the xcrun simctl push line), fcm (the FCM HTTP v1 message). apns, simctl and fcm need exactly one \
            device of the platform.
            Example: campaign-mock push --token "$TOKEN" --title Sale --body "20% off" --format simctl --out sale.apns
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, apns, simctl, fcm
    }

    @OptionGroup var connection: ServerOptions
    @Option(help: "The device's registration token.") var token: String?
    @Option(name: .customLong("user-key"), help: "Every device of this user (needs --app).") var userKey: String?
    @Option(help: "The integration key (narrows --token, needed with --user-key).") var app: String?
    @Option(help: "Alert title.") var title: String?
    @Option(help: "Alert body.") var body: String?
    @Option(help: "APNs sound (default: default).") var sound: String?
    @Option(help: "Badge number.") var badge: Int?
    @Option(help: "Notification category.") var category: String?
    @Option(name: .customLong("media-url"), help: "Image for rich notifications.") var mediaURL: String?
    @Option(name: .customLong("var"), help: "A payload variable KEY=VALUE (repeatable).") var variables: [String] = []
    @Flag(help: "A background push (content-available) without alert.") var silent = false
    @Option(
        name: .customLong("android-priority"),
        help: "The FCM message's android.priority: normal or high (default: high, normal with --silent).")
    var androidPriority: String?
    @Option(name: .customLong("id-style"), help: "v7, v7-negative, v7-64 or v8 (default: the server's).") var idStyle:
        String?
    @Option(
        name: .customLong("bundle-id"),
        help: "iOS bundle id, for the .apns file and the simctl line (default: the application's).")
    var bundleID: String?
    @Option(name: .customLong("android-package"), help: "Android package, for the adb lines.") var androidPackage:
        String?
    @Option(help: "json, apns, simctl or fcm.") var format: Format = .json
    @Option(help: "Write the output (the .apns file for simctl) here.") var out: String?
    @Flag(
        help: ArgumentHelp(
            "Also send it to the devices through APNs / FCM (the server's --apns-*, --fcm-*, --send-allow).",
            discussion: "Each send's outcome is printed to standard error; the exit code is 1 unless all were accepted."
        ))
    var send = false
    @Option(name: .customLong("apns-topic"), help: "With --send: the APNs topic, instead of the app's bundle id.")
    var apnsTopic: String?

    func run() throws {
        var request = PushRequest()
        request.token = token
        request.userKey = userKey
        request.app = app
        request.title = title
        request.body = body
        request.sound = sound
        request.badge = badge
        request.category = category
        request.mediaUrl = mediaURL
        request.silent = silent ? true : nil
        request.bundleId = bundleID
        request.androidPackage = androidPackage
        // A single-payload format names the platform, so a device of the other one is refused before any
        // push is created.
        switch format {
        case .json: request.platform = nil
        case .apns, .simctl: request.platform = .ios
        case .fcm: request.platform = .android
        }
        if let idStyle {
            guard let style = MessageIDStyle(rawValue: idStyle) else {
                throw CommandFailure(message: "error: --id-style must be v7, v7-negative, v7-64 or v8", code: 2)
            }
            request.idStyle = style
        }
        if let androidPriority {
            guard let priority = AndroidPriority(rawValue: androidPriority) else {
                throw CommandFailure(message: "error: --android-priority must be normal or high", code: 2)
            }
            request.androidPriority = priority
        }
        if !variables.isEmpty {
            var pairs: [String: String] = [:]
            for variable in variables {
                let parts = variable.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw CommandFailure(message: "error: --var must be KEY=VALUE, got '\(variable)'", code: 2)
                }
                pairs[String(parts[0])] = String(parts[1])
            }
            request.variables = pairs
        }
        do {
            try request.validate()
        } catch {
            throw CommandFailure(message: "error: \(error.message)", code: 2)
        }

        let endpoint = try connection.endpoint()
        let headers = connection.authorized([.contentType: "application/json"])
        let encoder = JSONEncoder()
        let response: HTTPClient.Response
        do {
            response = try HTTPClient.send(
                .post, "/_mock/push", to: endpoint, headers: headers, body: Array(try encoder.encode(request)))
        } catch {
            throw CommandFailure(message: "error: \(error)", code: 1)
        }
        guard response.status == 201 else { throw Self.refusal(response, "") }
        let push = try JSONDecoder().decode(ComposedPush.self, from: Data(response.body))
        for warning in push.warnings { Output.standardError("warning: \(warning)") }
        try emit(push, raw: response.text)
        if send { try sendThrough(push, to: endpoint) }
    }

    /// `POST /_mock/push/{id}/send`, and a line per message: outcome, provider, token, explanation. A server
    /// with --auto-send has sent it already: its answers are read from the push instead of sending twice.
    private func sendThrough(_ push: ComposedPush, to endpoint: HTTPClient.Endpoint) throws {
        let sends = try autoSends(push, endpoint) ?? requestSends(push, endpoint)
        for sent in sends {
            let detail = [sent.status.map(String.init), sent.reason, sent.providerId].compactMap { $0 }.joined(
                separator: " ")
            // The token, the reason and the explanation (which quotes the token and the user key) are the
            // device's and the provider's: escaped, as everything Output prints.
            let detailText = detail.isEmpty ? "" : " (\(detail))"
            Output.standardError(
                "\(sent.outcome.rawValue): \(sent.provider.rawValue) token=\(sent.registrationToken)\(detailText) "
                    + "\(sent.explanation)")
        }
        if sends.contains(where: { $0.outcome != .accepted }) {
            throw CommandFailure(message: "error: not every message was accepted", code: 1)
        }
    }

    /// The server's `{"error": …}` (or its body) as the command's failure.
    private static func refusal(_ response: HTTPClient.Response, _ doing: String) -> CommandFailure {
        CommandFailure(
            message: "error: \(doing)the server answered \(response.status): \(response.refusalReason)", code: 1)
    }

    private struct ServerInfo: Decodable {
        struct Sending: Decodable { var autoSend: Bool }
        var sending: Sending?
    }

    /// The answers of an auto-send, once every message has one (up to two minutes); nil when the server
    /// does not auto-send (or is older than sending).
    private func autoSends(_ push: ComposedPush, _ endpoint: HTTPClient.Endpoint) throws -> [PushSend]? {
        let headers = connection.authorized([:])
        guard let info = try? HTTPClient.send(.get, "/_mock/info", to: endpoint, headers: headers),
            (try? JSONDecoder().decode(ServerInfo.self, from: Data(info.body)))?.sending?.autoSend == true
        else { return nil }
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if let answer = try? HTTPClient.send(.get, "/_mock/push/\(push.id)", to: endpoint, headers: headers),
                let stored = try? JSONDecoder().decode(ComposedPush.self, from: Data(answer.body)),
                let sends = stored.sends, sends.count >= push.messages.count
            {
                return sends
            }
            SystemCalls.sleep(milliseconds: 100)
        }
        throw CommandFailure(message: "error: the server's auto-send gave no answer within two minutes", code: 1)
    }

    private func requestSends(_ push: ComposedPush, _ endpoint: HTTPClient.Endpoint) throws -> [PushSend] {
        let options = PushSendRequest(apnsTopic: apnsTopic)
        let response: HTTPClient.Response
        do {
            response = try HTTPClient.send(
                .post, "/_mock/push/\(push.id)/send", to: endpoint,
                headers: connection.authorized([.contentType: "application/json"]),
                body: Array(try JSONEncoder().encode(options)), timeoutSeconds: 120)
        } catch {
            throw CommandFailure(message: "error: \(error)", code: 1)
        }
        guard response.status == 200, let list = try? JSONDecoder().decode(PushSendList.self, from: Data(response.body))
        else { throw Self.refusal(response, "sending: ") }
        return list.sends
    }

    private func emit(_ push: ComposedPush, raw: String) throws {
        switch format {
        case .json:
            try write(raw + "\n")
        case .apns, .simctl:
            let message = try single(push, .ios)
            guard let file = message.apnsFile else { throw CommandFailure(message: "error: no APNs payload", code: 1) }
            if format == .apns { return try write(file) }
            let path = out ?? "campaign-mock-\(message.messageId).apns"
            try save(file, to: path)
            // The server's bundle id: --bundle-id, else the application's (as in the file's Simulator Target Bundle).
            Output.standardOutput("xcrun simctl push booted \(message.bundleId ?? "YOUR.BUNDLE.ID") \(path)")
        case .fcm:
            let message = try single(push, .android)
            try write(JSONText.pretty(message.fcm))
        }
    }

    private func single(_ push: ComposedPush, _ platform: Platform) throws -> ComposedMessage {
        let matching = push.messages.filter { $0.platform == platform }
        guard matching.count == 1 else {
            throw CommandFailure(
                message:
                    "error: \(matching.count) \(platform.rawValue) devices matched; --format \(format.rawValue) needs one "
                    + "(use --token, or --format json)", code: 1)
        }
        return matching[0]
    }

    private func write(_ text: String) throws {
        // JSON (the push, an APNs file, an FCM message) with any control character as a JSON escape.
        guard let out else { return Output.json(text) }
        try save(text, to: out)
    }

    private func save(_ text: String, to path: String) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CommandFailure(message: "error: cannot write \(path): \(error)", code: 1)
        }
    }
}
