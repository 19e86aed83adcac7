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

/// `campaign-mock tail`: one line per event of a running server's `/_mock/stream`, as it happens.
struct TailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tail",
        abstract: "Print what a running server sees as it happens: registrations, hits, requests, pushes.",
        discussion: """
            Reads GET /_mock/stream and prints one line per event (in colour on a terminal), or the events as \
            JSON lines with --json. When the connection drops it reconnects with Last-Event-ID, so nothing is \
            lost or printed twice. Stop with Ctrl-C. Exit codes: 0 when stopped, 1 when the server cannot be \
            reached or refuses at the start, 2 for a bad flag.
            Example: campaign-mock tail --type registration,open
            """
    )

    @OptionGroup var connection: ServerOptions
    /// The names these two had before `push` and `tail` shared theirs; kept so scripts keep working.
    @Option(help: .hidden) var url: String?
    @Option(help: .hidden) var token: String?
    @Option(
        help: "Event types, comma-separated: registration, device, receive, open, request, push, fault, app, reset.")
    var type: String?
    @Option(help: "Only events of this application (integration key).") var app: String?
    @Flag(help: "One JSON object per event: {\"id\", \"type\", \"data\"}.") var json = false

    func run() throws {
        var connection = connection
        connection.server = connection.server ?? url
        connection.adminToken = connection.adminToken ?? token
        let endpoint = try connection.endpoint(flag: url != nil ? "--url" : "--server")
        if let type {
            let selectable = StreamEventType.allCases.filter(\.isSelectable)
            if let unknown = type.split(separator: ",").first(where: {
                StreamEventType(rawValue: String($0)).map(\.isSelectable) != true
            }) {
                let known = selectable.map(\.rawValue).joined(separator: ", ")
                throw CommandFailure(message: "error: --type: '\(unknown)' is not one of \(known)", code: 2)
            }
        }
        var query: [String] = []
        // Every type but `device` unless asked: each registration would otherwise print twice.
        let types =
            type
            ?? StreamEventType.allCases.filter { $0.isSelectable && $0 != .device }.map(\.rawValue)
            .joined(separator: ",")
        query.append("type=" + PercentEncoding.encodeComponent(types))
        if let app { query.append("app=" + PercentEncoding.encodeComponent(app)) }
        let path = "/_mock/stream" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let headers = connection.authorized()

        let printer = EventPrinter(json: json, colour: !json && SystemCalls.standardOutputIsTerminal)
        // Ctrl-C (or SIGTERM) ends it with exit code 0; the stream is read on another thread.
        ShutdownSignals.block()
        let reader = SystemThread(name: "tail") { [headers] in
            do {
                try Self.follow(path, endpoint: endpoint, headers: headers, printer: printer)
            } catch let failure as CommandFailure {
                Output.standardError(failure.message)
                Output.exitProcess(failure.code)
            } catch {
                Output.standardError("error: \(error)")
                Output.exitProcess(1)
            }
        }
        _ = reader
        _ = ShutdownSignals.wait()
        Output.exitProcess(0)
    }

    /// Prints the stream's events, reconnecting with Last-Event-ID when the connection drops.
    private static func follow(
        _ path: String, endpoint: HTTPClient.Endpoint, headers: HTTPHeaders, printer: EventPrinter
    ) throws {
        var lastID: String?
        var connected = false
        while true {
            var request = headers
            if let lastID { request.append(HTTPHeaderName(rawValue: "Last-Event-ID"), lastID) }
            let stream: EventStreamClient
            do {
                stream = try EventStreamClient(path, to: endpoint, headers: request)
            } catch {
                // At the start, a server that is not there or refuses is an error; later it is a restart.
                guard connected, !error.message.contains("answered 4") else {
                    throw CommandFailure(message: "error: \(error.message)", code: 1)
                }
                SystemCalls.sleep(milliseconds: 1000)
                continue
            }
            if !connected { Output.standardError("Reading \(endpoint.authority)\(path); stop with Ctrl-C.") }
            connected = true
            do {
                while let event = try stream.next() {
                    if let id = event.id { lastID = id }
                    printer.print(event)
                }
            } catch {
                // A broken connection: reconnect below.
            }
            SystemCalls.sleep(milliseconds: 1000)
        }
    }
}

/// How `tail` writes an event: a line with the time, the type and what matters of it, or JSON.
struct EventPrinter {
    let json: Bool
    let colour: Bool

    func print(_ event: EventStreamClient.ServerSentEvent) {
        if json {
            let id = event.id.map { #""id":\#($0),"# } ?? ""
            Output.json(#"{\#(id)"type":"\#(event.type)","data":\#(event.data)}"#)
            return
        }
        let item = (try? JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8))) ?? .null
        func text(_ key: String) -> String { item[key]?.text ?? "" }
        let summary: String
        let type = StreamEventType(rawValue: event.type)
        switch type {
        case .registration:
            let changes = (item["changes"]?.items ?? []).compactMap(\.text).joined(separator: ",")
            summary =
                "\(text("platform")) \(text("integrationKey")) token=\(text("registrationToken")) "
                + "userKey=\(text("userKey")) (\(changes))"
        case .device:
            summary =
                "\(item["application"]?["platform"]?.text ?? "") \(item["application"]?["integrationKey"]?.text ?? "") "
                + "token=\(text("registrationToken")) registrations=\(text("registrationCount"))"
        case .receive, .open:
            let token = item["linked"]?["registrationToken"]?.text
            summary = text("rawId") + (token.map { " → token=\($0)" } ?? "")
        case .request:
            summary =
                "\(text("method")) \(AccessLog.redacted(text("target"))) \(text("status"))"
                + (item["reason"]?.text.map { " \($0)" } ?? "") + (item["appKey"]?.text.map { " app=\($0)" } ?? "")
        case .push:
            let targets = (item["messages"]?.items ?? []).map { message in
                "\(message["platform"]?.text ?? "") \(message["registrationToken"]?.text ?? "")"
            }
            summary = "#\(text("id")) delivery \(text("deliveryId")) to \(targets.joined(separator: ", "))"
        case .send:
            summary =
                "push #\(text("pushId")) \(text("provider")) \(text("outcome")) token=\(text("registrationToken"))"
                + (item["reason"]?.text.map { " \($0)" } ?? "")
        case .check:
            let finding = item["finding"]
            summary =
                "\(text("change")) \(finding?["severity"]?.text ?? "") \(finding?["rule"]?.text ?? ""): "
                + (finding?["title"]?.text ?? "")
        case .shutdown:
            summary = "the server is stopping; reconnecting when it is back"
        case .gap, .overflow:
            summary = item["error"]?.text ?? event.data
        case .fault, .app, .reset, nil:
            summary = event.data
        }
        let stamp =
            item["receivedAt"]?.text ?? item["sentAt"]?.text ?? item["updatedAt"]?.text ?? item["createdAt"]?.text ?? ""
        let time = stamp.count > 11 ? String(stamp.dropFirst(11).prefix(12)) : String(repeating: " ", count: 12)
        let kind = PrintableText.escaped(event.type) + String(repeating: " ", count: max(0, 12 - event.type.count))
        let colours: [StreamEventType: String] = [
            .registration: "32", .receive: "36", .open: "35", .request: "90", .push: "33", .gap: "31",
        ]
        let painted = colour ? "\u{1B}[\(type.flatMap { colours[$0] } ?? "1")m\(kind)\u{1B}[0m" : kind
        // What the app sent (a userKey with ESC or CR LF in it) is shown, not executed.
        Output.standardOutput("\(time) \(trusted: painted) \(summary)")
    }
}
