import CampaignMock
import CampaignMockModel
import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMockAdmin
@testable import CampaignMockStorage

/// Every statement the admin API (and so the console) runs is planned by SQLite against the real schema,
/// and none reads the whole of a table that grows with traffic, unless it is listed below with why.
///
/// The statements are not written out here: the test walks every operation `openapi.json` documents, with
/// each of its query parameters, on a server with a data directory, then takes every statement the store
/// prepared meanwhile (``Store/preparedStatements()``). A new query on an admin path is planned the first
/// time the walk reaches it; a new operation or parameter without a sample value here fails the walk.
@Suite(.timeLimit(.minutes(2)))
struct QueryPlanTests {
    /// Tables that stay small whatever the traffic, and why: a scan of one is allowed. Every other table of
    /// the schema (devices, events, messages, pushes, a new one...) grows with traffic.
    static let small: [String: String] = [
        "applications": "the applications a team configured, a handful (and cached in memory)",
        "options": "Campaign options, set by hand",
        "enum_values": "enumeration values, set by hand",
        "installed_packages": "packages a backend installed, a few",
        "schema_migrations": "a row per migration",
        "store_counters": "a few named counters",
    ]

    /// Statements that do read the whole of a table that grows, on purpose: the table, a piece of the statement
    /// that tells it apart, and why.
    static let allowedScans: [(table: String, statement: String, reason: String)] = [
        (
            "devices", "SELECT count(*) FROM devices d JOIN applications a",
            "a list's total counts the devices that match (14 ms at 100,000 devices, docs/performance.md)"
        ),
        (
            "registrations", "SELECT count(*) FROM registrations r JOIN devices d",
            "the list of registrations counts those that match, as the devices' list does"
        ),
        (
            "tracking_events", "SELECT count(*) FROM tracking_events e",
            "a list's total counts the events that match (17 ms at 1,000,000 events, docs/performance.md)"
        ),
        (
            "devices", "lower(",
            "`q=` searches text in every device (0.3 s per 100,000 devices, docs/performance.md)"
        ),
        (
            "devices", "json_each(d.params)",
            "`param.<name>=` reads the params of every device: they are a JSON column (migration 0009)"
        ),
        (
            "devices", "DELETE FROM devices WHERE ? IS NULL OR application_id = ?",
            "a reset deletes every device, or an application's: it reads what it deletes"
        ),
        (
            "messages", "DELETE FROM messages WHERE ? IS NULL OR application_id = ?",
            "a reset deletes every message, or an application's"
        ),
        (
            "tracking_events", "DELETE FROM tracking_events WHERE ? IS NULL OR application_id = ?",
            "a reset deletes every event, or an application's"
        ),
        ("rt_events", "DELETE FROM rt_events WHERE ? IS NULL OR app_key = ?", "a reset deletes every real-time event"),
        (
            "pushes", "DELETE FROM pushes WHERE NOT EXISTS",
            "after a reset or an import, each push is read once to find those without a message (by messages_push)"
        ),
        (
            "devices", "SELECT count(*) FROM devices",
            "retention's cut: how many devices beyond the cap, the smallest index read page by page (stepping to the "
                + "cap-th newest row cost several times more)"
        ),
        (
            "pushes", "SELECT count(*) FROM pushes WHERE answer",
            "the list of pushes counts them, as the devices' list counts devices (a row per composed push, not per hit)"
        ),
        (
            "tracking_events", "e.message_value IN",
            "events by message id read every event: an index of them cost a hit a fifth of its throughput"
        ),
    ]

    /// A value each documented query parameter accepts, so that the query it adds runs.
    static func sample(_ parameter: String, message: (id: String, delivery: String)) -> String? {
        [
            "app": "integrationKey", "platform": "ios", "userKey": "userkey", "token": "70757368546f6b656e",
            "q": "iphone", "before": "1000", "after": "0", "limit": "10", "tag": "1", "type": "open",
            "messageId": message.id, "deliveryId": message.delivery, "since": "2020-01-01T00:00:00Z",
            "endpoint": "registration", "status": "200", "only": "events", "format": "pem", "for": "registration",
            "count": "1", "timeout": "100ms", "severity": "warning",
        ][parameter]
    }

    static var document: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(OpenAPIDocument.bytes))) as? [String: Any] ?? [:]
    }

    @Test func noAdminQueryScansATableThatGrowsWithTraffic() throws {
        let directory = TemporaryDirectory()
        let message = try Self.seed(directory)
        // A server of its own on the same store: what it prepares, only the admin API asked for.
        let live = try InProcessServer(directory: directory) { $0.applications = SDKBodies.applications }
        try walkEveryOperation(live, message: message)
        let statements = try live.app.store.preparedStatements()
        #expect(statements.count > 30, "the walk ran the admin API's queries")

        let planner = try SQLiteConnection(path: try #require(live.app.store.path))
        var used = Set<Int>()
        for statement in statements.sorted() {
            for scan in try Self.fullScans(statement, planner) {
                let allowed = Self.allowedScans.indices.filter {
                    Self.allowedScans[$0].table == scan.table && statement.contains(Self.allowedScans[$0].statement)
                }
                used.formUnion(allowed)
                #expect(!allowed.isEmpty, "reads every row of \(scan.table) (\(scan.detail)):\n\(statement)")
            }
        }
        // An exception no statement needs any more goes.
        for index in Self.allowedScans.indices where !used.contains(index) {
            #expect(Bool(false), "no admin query scans as allowed: \(Self.allowedScans[index])")
        }
    }

    /// The device detail of a device with a composed push and its hits: its messages' first receive and
    /// open are found through the index of events by message.
    @Test func aDevicesMessagesFindTheirHitsThroughTheIndex() throws {
        let directory = TemporaryDirectory()
        _ = try Self.seed(directory)
        let live = try InProcessServer(directory: directory) { $0.applications = SDKBodies.applications }
        let detail = try live.json("GET", "/_mock/devices/70757368546f6b656e")
        #expect(detail.status == 200)
        let statements = try live.app.store.preparedStatements().filter { $0.contains("min(e.received_at)") }
        #expect(statements.count == 1)
        let planner = try SQLiteConnection(path: try #require(live.app.store.path))
        for statement in statements {
            let details = try planner.plan(of: statement)
            #expect(
                details.filter { $0.contains("INDEX tracking_events_message (message_ref=? AND tag=?)") }.count == 2,
                "\(details)")
        }
    }

    /// A device, a push to it, a receive and an open of its message, in `directory`, by a server that is
    /// gone when this returns. Returns the message's id and delivery.
    static func seed(_ directory: TemporaryDirectory) throws -> (id: String, delivery: String) {
        let live = try InProcessServer(directory: directory) { $0.applications = SDKBodies.applications }
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        let push = try live.json("POST", "/_mock/push", body: #"{"token":"70757368546f6b656e","body":"Hello"}"#)
        #expect(push.status == 201, "\(push.object)")
        let composed = (push.object["messages"] as? [[String: Any]])?.first
        let tracking = try #require(composed?["tracking"] as? [String: String])
        for path in [tracking["receive"], tracking["open"]] {
            #expect(try live.request("GET", try #require(path)).status == 200)
        }
        let messageID = try #require(composed?["messageId"] as? String)
        return (messageID, try #require(push.object["deliveryId"] as? String))
    }

    /// Sends every documented operation once without parameters and once with each of its query
    /// parameters; the ones that empty the store come last.
    func walkEveryOperation(_ live: InProcessServer, message: (id: String, delivery: String)) throws {
        let paths = Self.document["paths"] as? [String: [String: Any]] ?? [:]
        let components = (Self.document["components"] as? [String: Any])?["parameters"] as? [String: Any]
        var requests: [(method: String, target: String, body: String?)] = []
        let journal = try live.json("GET", "/_mock/requests?limit=1").object["requests"] as? [[String: Any]]
        let newestRequest = String(journal?.first?["id"] as? Int ?? 0)
        for (path, operations) in paths.sorted(by: { $0.key < $1.key }) {
            // The stream never ends by itself, and reads what writes publish, not the store.
            if path == "/_mock/stream" { continue }
            let concrete = path.replacingOccurrences(of: "{token}", with: "70757368546f6b656e")
                .replacingOccurrences(of: "{key}", with: "integrationKey")
                .replacingOccurrences(of: "{file}", with: "console.js")
                .replacingOccurrences(of: "{id}", with: path.hasPrefix("/_mock/requests/") ? newestRequest : "1")
            for (method, operation) in operations.sorted(by: { $0.key < $1.key }) {
                let parameters = ((operation as? [String: Any])?["parameters"] as? [[String: Any]] ?? []).compactMap {
                    parameter -> [String: Any]? in
                    guard let reference = parameter["$ref"] as? String else { return parameter }
                    return components?[String(reference.split(separator: "/").last ?? "")] as? [String: Any]
                }
                let query = parameters.filter { $0["in"] as? String == "query" }.compactMap { $0["name"] as? String }
                var variants = [""]
                for name in query {
                    let value = try #require(Self.sample(name, message: message), "no sample value for \(name)")
                    variants.append("\(name)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
                }
                if path == "/_mock/devices" { variants.append("param.email=email%40email.com") }
                let body: String? =
                    switch (method, path) {
                    case ("post", "/_mock/apps"): #"{"platform":"ios","integrationKey":"new-key"}"#
                    case ("put", "/_mock/apps/{key}"): #"{"enabled":true}"#
                    case ("post", "/_mock/faults"): #"{"endpoint":"soap","status":500}"#
                    case ("post", "/_mock/push"): #"{"token":"70757368546f6b656e","body":"Hello"}"#
                    case ("post", "/_mock/push/check"): #"{"apns":{"aps":{"alert":"Hello"}}}"#
                    case ("put", "/_mock/state"): try live.request("GET", "/_mock/state").body
                    default: nil
                    }
                for variant in variants {
                    var target = concrete + (variant.isEmpty ? "" : "?" + variant)
                    if path == "/_mock/wait" && !variant.hasPrefix("for=") {
                        target += (variant.isEmpty ? "?" : "&") + "for=registration&timeout=100ms"
                    }
                    requests.append((method.uppercased(), target, body))
                }
            }
        }
        // Removing the device comes after the reads of it, which would otherwise find none.
        let emptying = [
            "/_mock/reset", "/_mock/state", "/_mock/apps/integrationKey", "/_mock/devices/70757368546f6b656e",
        ]
        let empties = { (request: (method: String, target: String, body: String?)) in
            request.method != "GET" && emptying.contains { request.target.hasPrefix($0) }
        }
        let ordered = requests.filter { !empties($0) } + requests.filter(empties)
        for request in ordered {
            let response = try live.request(request.method, request.target, body: request.body)
            // This server finds no xcrun or adb (503): those routes run a tool, not a query.
            let runsATool = ["/simulator", "/emulator"].contains { request.target.contains($0) }
            #expect(response.status < 500 || runsATool, "\(request): \(response.status)")
            // A refused parameter would skip its query: the lists must take every one.
            let path = request.target.split(separator: "?").first.map(String.init)
            if request.method == "GET" && ["/_mock/devices", "/_mock/events", "/_mock/requests"].contains(path) {
                #expect(response.status == 200, "\(request.target): \(response.body)")
            }
        }
    }

    /// The tables a statement reads from end to end: a `SCAN` of a table or of a whole index, a `SEARCH`
    /// through no index (what SQLite plans for a correlated `min()` without one) and an automatic index
    /// (built from every row on each run); except virtual tables (`json_each`), `max(id)`, and a page read
    /// in id order, which stops at its `LIMIT`.
    static func fullScans(_ statement: String, _ planner: SQLiteConnection) throws -> [(table: String, detail: String)]
    {
        let details = try planner.plan(of: statement)
        let tables = aliases(statement)
        let schema = Set(
            try planner.query("SELECT name FROM sqlite_schema WHERE type = 'table'").map { try $0.text("name") })
        return details.compactMap { detail in
            let words = detail.split(separator: " ").map(String.init)
            guard words.count >= 2, ["SCAN", "SEARCH"].contains(words[0]), !detail.contains("VIRTUAL TABLE"),
                case let table = tables[words[1]] ?? words[1], schema.contains(table), small[table] == nil
            else { return nil }
            let usesAnIndex = words[0] == "SEARCH" && detail.contains(" USING ") && !detail.contains("AUTOMATIC")
            // `max(id)`: one step to the end of the table's B-tree, also planned as a bare `SEARCH`.
            let endOfTheTable =
                words[0] == "SEARCH" && words.count == 2
                && statement.range(of: #"\b(max|min)\((\#(words[1])\.)?id\)"#, options: .regularExpression) != nil
            let inIDOrder =
                words[0] == "SCAN" && words.count == 2 && !details.contains { $0.contains("TEMP B-TREE") }
                && statement.range(
                    of: #"ORDER BY (\#(words[1])\.)?id( DESC)?\s+LIMIT"#, options: .regularExpression) != nil
            return usesAnIndex || endOfTheTable || inIDOrder ? nil : (table, detail)
        }
    }

    /// The table each name in a statement's FROM and JOIN clauses stands for (itself, or an alias).
    static func aliases(_ statement: String) -> [String: String] {
        let keywords: Set<String> = ["WHERE", "ON", "JOIN", "LEFT", "INNER", "ORDER", "GROUP", "LIMIT", "USING", "AS"]
        var tables: [String: String] = [:]
        let words = statement.split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == "(" || $0 == ")" })
            .map(String.init)
        for (index, word) in words.enumerated() where ["FROM", "JOIN"].contains(word.uppercased()) {
            guard index + 1 < words.count else { continue }
            let table = words[index + 1]
            tables[table] = table
            var next = index + 2
            if next < words.count, words[next].uppercased() == "AS" { next += 1 }
            if next < words.count, !keywords.contains(words[next].uppercased()) { tables[words[next]] = table }
        }
        return tables
    }
}
