import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockSOAP
@testable import CampaignMockStorage
@testable import CampaignMockSupport

/// The schema catalogue is the one source for GetEntityIfMoreRecent, the WSDL, the router's methods and
/// the fields ExecuteQuery accepts; these tests keep the other places in step with it.
@Suite("schema catalogue", .timeLimit(.minutes(3)))
struct SchemaCatalogueTests {
    private static let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../..").standardized
    private static let schemasFolder = projectRoot.appendingPathComponent("Sources/CampaignMockSOAP/Schemas")

    @Test func everySchemaFileIsBuiltIn() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.schemasFolder.path)
            .filter { $0.hasSuffix(".xml") }
        let ids = Set(files.map { String($0.dropLast(4)).replacing("-", with: ":", maxReplacements: 1) })
        #expect(ids == Set(SchemaCatalogue.builtIn.schemas.keys))
        #expect(ids.count == 16)
    }

    @Test func everyQueryableFieldIsDeclaredInItsSchema() throws {
        for (id, table) in QuerySchemas.tables {
            let schema = try #require(SchemaCatalogue.builtIn.schema(id), "\(id) has a table but no schema")
            for field in table.columns.keys {
                if let link = field.link {
                    #expect(schema.links.contains(link), "\(id): \(field) names a link the schema lacks")
                } else {
                    #expect(schema.attributes.contains(field.attribute), "\(id): \(field) is not in the schema")
                }
            }
            for attribute in schema.attributes {
                #expect(
                    table.columns[QueryDefinition.Field(link: nil, attribute: attribute)] != nil,
                    "\(id): @\(attribute) is declared but cannot be queried")
            }
        }
    }

    @Test func theWSDLListsExactlyTheCataloguesMethods() throws {
        for (id, schema) in SchemaCatalogue.builtIn.schemas {
            let methods = Set(schema.methods.keys).union(schema.interfaceMethods.keys)
            #expect(Set((WSDL.services[id] ?? []).map(\.name)) == methods, "\(id)")
        }
    }

    @Test func everyMethodOfTheCatalogueIsHandled() throws {
        let live = try InProcessServer.withSDKApplications()
        var client = SOAPTestClient(live: live)
        _ = try client.logon()
        for (id, schema) in SchemaCatalogue.builtIn.schemas {
            for method in schema.methods.keys.sorted() where method != "Logoff" {
                let reply = try client.call(id, method, "<sessiontoken>\(client.token)</sessiontoken>")
                #expect(
                    reply.faultDetail?.contains("does not implement") != true, "\(id)#\(method): \(reply.body)")
                #expect(reply.faultString?.hasPrefix("SOP-330006") != true, "\(id)#\(method): \(reply.body)")
            }
        }
    }

    @Test func outputsCarryTheTypesTheSchemaDeclares() throws {
        let live = try InProcessServer.withSDKApplications()
        var client = SOAPTestClient(live: live)
        _ = try client.logon()
        let option = try client.call(
            "xtk:session", "GetOption", "<sessiontoken>\(client.token)</sessiontoken><strName>XtkDatabaseId</strName>")
        #expect(option.payload?.element("pstrValue")?.attribute("type") == "xsd:string")
        #expect(option.payload?.element("pbtType")?.attribute("type") == "xsd:byte")
        #expect(option.payload?.element("pbtType")?.text == "6")
        let time = try client.call("xtk:session", "GetServerTime", "<sessiontoken/>", headers: ["Cookie": ""])
        #expect(time.payload?.element("ptmServerTime")?.attribute("type") == "xsd:dateTime")
        let entity = try client.call(
            "xtk:persist", "GetEntityIfMoreRecent",
            "<sessiontoken/><pk>xtk:schema|nms:recipient</pk><md5/><mustExist>false</mustExist>")
        #expect(entity.payload?.element("pdomDoc")?.element("schema")?.attribute("name") == "recipient")
        let unknown = try client.call(
            "xtk:persist", "GetEntityIfMoreRecent",
            "<sessiontoken/><pk>xtk:srcSchema|nms:recipient</pk><md5/><mustExist>false</mustExist>")
        #expect(unknown.status == 200)
        #expect(unknown.payload?.element("pdomDoc")?.elements.isEmpty == true)
    }

    /// The table of schemas and methods in docs/soap.md (after `<!-- catalogue: methods -->`) says what
    /// the catalogue holds.
    @Test func theDocsListTheCataloguesMethods() throws {
        let readme = try String(
            contentsOf: Self.projectRoot.appendingPathComponent("docs/soap.md"), encoding: .utf8
        )
        let section = try #require(readme.components(separatedBy: "<!-- catalogue: methods -->\n").dropFirst().first)
        let rows = section.split(separator: "\n", omittingEmptySubsequences: false).prefix { $0.hasPrefix("|") }
            .dropFirst(2)
        var listed: [String: String] = [:]
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            for schema in cells[0].split(separator: ",") {
                listed[schema.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["`"])] = cells[1]
            }
        }
        var expected: [String: String] = [:]
        for (id, schema) in SchemaCatalogue.builtIn.schemas {
            func names(_ methods: [String: SchemaCatalogue.Method]) -> String {
                methods.keys.sorted().map { "`\($0)`" }.joined(separator: ", ")
            }
            if schema.methods.isEmpty && schema.interfaceMethods.isEmpty {
                expected[id] = "none: read with `ExecuteQuery`, fetched with `GetEntityIfMoreRecent`"
            } else if schema.interfaceMethods.isEmpty {
                expected[id] = names(schema.methods)
            } else {
                let interfaces = schema.implements.map { "`\($0)`" }.joined(separator: ", ")
                expected[id] = names(schema.methods) + "; and of \(interfaces): " + names(schema.interfaceMethods)
            }
        }
        #expect(listed == expected)
    }
}

@Suite("SOAP sessions beyond Logon", .timeLimit(.minutes(3)))
struct SOAPSessionModesTests {
    @Test func bearerTokensAreConfigurableAndOthersAreRefused() throws {
        let live = try InProcessServer.withSDKApplications { $0.soapBearerTokens = ["token-a", "token-b"] }
        let client = SOAPTestClient(live: live)
        let body = "<sessiontoken/><strName>XtkDatabaseId</strName>"
        for token in ["token-a", "token-b"] {
            let accepted = try client.call(
                "xtk:session", "GetOption", body, headers: ["Authorization": "Bearer \(token)"])
            #expect(accepted.status == 200, "\(accepted.body)")
        }
        let refused = try client.call(
            "xtk:session", "GetOption", body, headers: ["Authorization": "Bearer campaign-mock-bearer-token"])
        #expect(refused.status == 403)
        #expect(refused.faultString?.hasPrefix("XSV-350008") == true)
        let logon = try client.call(
            "xtk:session", "BearerTokenLogon", "<sessiontoken/><strBearerToken>token-b</strBearerToken>")
        #expect(logon.payload?.element("pstrSessionToken")?.text.hasPrefix("___") == true)
        let wrong = try client.call(
            "xtk:session", "BearerTokenLogon", "<sessiontoken/><strBearerToken>nope</strBearerToken>")
        #expect(wrong.faultString?.hasPrefix("SOP-330011") == true)
    }

    @Test func mcPingAnswersLoggedOnCallersOnly() throws {
        let live = try InProcessServer.withSDKApplications()
        var client = SOAPTestClient(live: live)
        _ = try client.logon()
        let ping = try live.request(
            "GET", "/nl/jsp/mcPing.jsp",
            headers: ["Cookie": "__sessiontoken=\(client.token)", "X-Security-Token": client.securityToken ?? ""])
        #expect(ping.status == 200)
        let lines = ping.body.split(separator: "\n")
        #expect(lines.first == "Ok" && lines.last == "0/10000 pending events" && lines.count == 3)
        let bearer = try live.request(
            "GET", "/nl/jsp/mcPing.jsp", headers: ["Authorization": "Bearer campaign-mock-bearer-token"])
        #expect(bearer.status == 200)
        let anonymous = try live.request("GET", "/nl/jsp/mcPing.jsp")
        #expect(anonymous.status == 403)
        #expect(anonymous.body.hasPrefix("XSV-350008"))
        let noSecurityToken = try live.request(
            "GET", "/nl/jsp/mcPing.jsp", headers: ["Cookie": "__sessiontoken=\(client.token)"])
        #expect(noSecurityToken.status == 403)
    }
}
