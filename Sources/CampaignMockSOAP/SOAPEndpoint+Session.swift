package import CampaignMockHTTP
package import CampaignMockRuntime
import CampaignMockStorage
import CampaignMockSupport
import CampaignMockSystem

/// `xtk:session` and `xtk:persist` beyond Logon: options, server time, user info, ids, writes and the
/// schema catalogue (docs/protocol.md §5).
extension SOAPEndpoint {
    /// What `/r/test` and `serverInfo` say the build is.
    static let buildNumber = "9999"

    /// The packages a client can test with `hasPackage`.
    static let installedPackages = [
        ("nms", "core"), ("nms", "campaign"), ("nms", "messageCenter"), ("nms", "mobileApp"),
    ]

    /// `2026-11-23 06:12:16.123Z`, as Campaign writes times.
    static func now() -> String {
        RFC3339.string(microsecondsSince1970: Clock.wallClockMicroseconds()).replacing("T", with: " ")
    }

    /// `<userInfo …>` with the installed packages, built in and from `InstallPackage` (acc-js-sdk's
    /// `hasPackage` reads them).
    func userInfo(login: String) -> String {
        let installed = (try? store.read { try $0.installedPackages() }) ?? []
        let packages = (Self.installedPackages + installed).map { namespace, name in
            XMLOutput.element("installed-package", [("namespace", namespace), ("name", name)])
        }
        return XMLOutput.element(
            "userInfo",
            [
                ("id", "0"), ("login", login), ("loginCS", login), ("loginId", "0"),
                ("timezone", "UTC"), ("locale", "en"), ("homeDir", ""), ("instanceLocale", "en"),
            ], content: XMLOutput.element("login-right", [("right", "admin")]) + packages.joined())
    }

    /// `GetOption(name)` → the value as text and its data type; an unknown option is `""` and `0`.
    func getOption(_ call: SOAPCall, _ method: SchemaCatalogue.Method) throws(SOAPFault) -> EndpointResult {
        let name = try call.string("strName").trimmingASCIISpaces()
        let option: StoredOption?
        do {
            option = try store.read { try $0.option(name) }
        } catch {
            throw SOAPFault(.server, "Error while reading the option", detail: "\(error)")
        }
        let values = [option?.value ?? "", String(option?.dataType ?? 0)]
        return EndpointResult(response: SOAPResponse.outputs(method, service: call.service, values))
    }

    /// `GetNewIdsEx(count, sequence)` → `<idList><id id="…"/>…</idList>`.
    func newIDs(_ call: SOAPCall, _ method: SchemaCatalogue.Method) throws(SOAPFault) -> EndpointResult {
        guard let count = Int(try call.string("lCount").trimmingASCIISpaces()), (1...10_000).contains(count) else {
            throw .badParameters(call.method, service: call.service, "the count must be a number from 1 to 10000")
        }
        let ids: [Int64]
        do {
            ids = try store.writeAndWait { try $0.newIDs(count) }
        } catch {
            throw SOAPFault(.server, "Error while reserving ids", detail: "\(error)")
        }
        let list = XMLOutput.element(
            "idList", content: ids.map { XMLOutput.element("id", [("id", String($0))]) }.joined())
        return EndpointResult(response: SOAPResponse.outputs(method, service: call.service, [list]))
    }

    /// `GetEntityIfMoreRecent("xtk:schema|nms:recipient", md5, mustExist)`: the catalogue's document; an
    /// unknown schema or another entity type answers an empty document, as Campaign does.
    func entityIfMoreRecent(_ call: SOAPCall, _ method: SchemaCatalogue.Method) throws(SOAPFault) -> EndpointResult {
        let key = try call.string("pk").trimmingASCIISpaces()
        let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
        let document =
            parts.count == 2 && parts[0] == "xtk:schema" ? SchemaCatalogue.builtIn.schema(parts[1])?.document : nil
        // Campaign answers this one in its default namespace, urn:wpp:default.
        return EndpointResult(
            response: SOAPResponse.outputs(
                method, service: call.service, namespace: "urn:wpp:default", [document ?? ""]))
    }

    /// `Write(doc)` for the writable schemas: `xtk:option` and `nms:recipient`, with `_operation` insert,
    /// update, insertOrUpdate (the default) or delete, by `_key` (`@name` for options, `@email` or `@id`
    /// for recipients).
    func write(_ call: SOAPCall, _ method: SchemaCatalogue.Method) throws(SOAPFault) -> EndpointResult {
        let document = try call.document("domDoc")
        let schema = document.attribute("xtkschema") ?? ""
        let operation = document.attribute("_operation") ?? "insertOrUpdate"
        guard ["insert", "update", "insertOrUpdate", "delete"].contains(operation) else {
            throw .badParameters(
                call.method, service: call.service,
                "_operation must be insert, update, insertOrUpdate or delete, not '\(operation)'")
        }
        let done = EndpointResult(response: SOAPResponse.outputs(method, service: call.service, []))
        switch schema {
        case "xtk:option":
            return try writeOption(call, document, operation: operation, done: done)
        case "nms:recipient":
            return try writeRecipient(call, document, operation: operation, done: done)
        default:
            throw .methodFailed(
                call.method, service: call.service,
                "campaign-mock writes xtk:option and nms:recipient documents, not '\(schema)'")
        }
    }

    private func writeOption(_ call: SOAPCall, _ document: MarkupElement, operation: String, done: EndpointResult)
        throws(SOAPFault) -> EndpointResult
    {
        guard let name = document.attribute("name"), !name.isEmpty else {
            throw .badParameters(call.method, service: call.service, "the option has no name")
        }
        let existing = (try? store.read { try $0.option(name) }) ?? nil
        if operation == "delete" {
            return EndpointResult(response: done.response) { _ = try $0.deleteOption(name) }
        }
        if operation == "insert" && existing != nil {
            throw .methodFailed(call.method, service: call.service, "the option '\(name)' exists already")
        }
        if operation == "update" && existing == nil {
            throw .methodFailed(call.method, service: call.service, "there is no option '\(name)'")
        }
        let dataType = Int(document.attribute("dataType") ?? "") ?? existing?.dataType ?? 6
        let value =
            ["stringValue", "longValue", "doubleValue", "timeStampValue", "memoValue"].lazy.compactMap {
                document.attribute($0) ?? document.element($0)?.text
            }.first ?? existing?.value ?? ""
        let option = StoredOption(
            name: name, dataType: dataType, value: value, description: document.attribute("description"))
        return EndpointResult(response: done.response) { try $0.writeOption(option) }
    }

    private func writeRecipient(_ call: SOAPCall, _ document: MarkupElement, operation: String, done: EndpointResult)
        throws(SOAPFault) -> EndpointResult
    {
        let key = document.attribute("_key") ?? "@email"
        guard key == "@email" || key == "@id" else {
            throw .badParameters(call.method, service: call.service, "_key must be @email or @id, not '\(key)'")
        }
        let fields = RecipientFields(
            id: document.attribute("id").flatMap { Int64($0) }, email: document.attribute("email"),
            firstName: document.attribute("firstName"), lastName: document.attribute("lastName"),
            blackList: document.attribute("blackList").map { $0 == "1" || $0 == "true" })
        if key == "@email" && (fields.email ?? "").isEmpty {
            throw .badParameters(call.method, service: call.service, "_key is @email but the recipient has no email")
        }
        if key == "@id" && fields.id == nil {
            throw .badParameters(call.method, service: call.service, "_key is @id but the recipient has no id")
        }
        let existing: Bool
        do {
            existing = try store.read { try $0.recipientExists(fields, byID: key == "@id") }
        } catch {
            throw SOAPFault(.server, "Error while reading the database", detail: "\(error)")
        }
        switch operation {
        case "insert" where existing:
            throw .methodFailed(call.method, service: call.service, "a recipient with this \(key) exists already")
        case "update" where !existing, "delete" where !existing:
            throw .methodFailed(call.method, service: call.service, "no recipient with this \(key)")
        case _ where !existing && (fields.email ?? "").isEmpty:
            throw .methodFailed(
                call.method, service: call.service,
                "a new recipient needs an email (campaign-mock keys recipients by email)")
        default:
            break
        }
        return EndpointResult(response: done.response) { transaction in
            if operation == "delete" {
                try transaction.deleteRecipient(fields, byID: key == "@id")
            } else {
                try transaction.writeRecipient(fields, byID: key == "@id")
            }
        }
    }
}

extension SOAPEndpoint {
    /// `GET /nl/jsp/mcPing.jsp` (docs/protocol.md §5.7): `Ok`, the time and the real-time event queue
    /// (always empty here: events are handled as they arrive), for a caller with a session or an accepted
    /// bearer token; others get the session fault's text with 403, like the real page's session check.
    package func mcPing(_ request: HTTPRequest) throws -> EndpointResult {
        guard request.method == .get || request.method == .head else {
            throw HTTPError(.methodNotAllowed, "mcPing.jsp takes GET", headers: [.allow: "GET, HEAD"])
        }
        do {
            _ = try sessions.authenticate(request, token: "")
        } catch {
            throw HTTPError(
                .forbidden, "XSV-350008 Session has expired or is invalid. Please reconnect. (\(error.detail ?? ""))")
        }
        return EndpointResult(response: .text(.ok, "Ok\n\(Self.now())\n0/10000 pending events"))
    }
}
