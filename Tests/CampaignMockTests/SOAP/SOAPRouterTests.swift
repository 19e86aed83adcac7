import CampaignMockTestSupport
import CampaignMockTesting
import Foundation
import Testing

@testable import CampaignMock
@testable import CampaignMockModel
@testable import CampaignMockSOAP
@testable import CampaignMockSupport

/// Posts SOAP envelopes to a server and reads the replies with the project's XML reader.
struct SOAPTestClient {
    let live: any TestServer
    var token = ""
    var securityToken: String?

    struct Reply {
        let status: Int
        let body: String
        let root: MarkupElement?

        /// The element inside `SOAP-ENV:Body`.
        var payload: MarkupElement? { root?.element("Body")?.elements.first }
        var faultString: String? { payload?.element("faultstring")?.text }
        var faultDetail: String? { payload?.element("detail")?.text }
    }

    func call(_ service: String, _ method: String, _ parameters: String, headers: [String: String] = [:]) throws
        -> Reply
    {
        let envelope = """
            <soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:\(service)">\
            <soapenv:Header/><soapenv:Body><urn:\(method)>\(parameters)</urn:\(method)></soapenv:Body></soapenv:Envelope>
            """
        var all = ["Content-Type": "text/xml; charset=utf-8", "SOAPAction": "\(service)#\(method)"]
        if let securityToken { all["X-Security-Token"] = securityToken }
        for (key, value) in headers { all[key] = value }
        return try post(envelope, headers: all)
    }

    func post(_ body: String, headers: [String: String]) throws -> Reply {
        let response = try live.request("POST", "/nl/jsp/soaprouter.jsp", body: body, headers: headers)
        return Reply(
            status: response.status, body: response.body, root: try? XMLReader.parse(Array(response.body.utf8)))
    }

    mutating func logon(login: String = "admin", password: String = "admin") throws -> Reply {
        let reply = try call(
            "xtk:session", "Logon",
            "<urn:sessiontoken/><urn:strLogin>\(login)</urn:strLogin><urn:strPassword>\(password)</urn:strPassword>"
                + "<urn:elemParameters/>"
        )
        token = reply.payload?.element("pstrSessionToken")?.text ?? ""
        securityToken = reply.payload?.element("pstrSecurityToken")?.text
        return reply
    }

    /// Runs a queryDef and returns the `pdomOutput` content element.
    func query(_ queryDef: String) throws -> (reply: Reply, output: MarkupElement?) {
        let reply = try call(
            "xtk:queryDef", "ExecuteQuery",
            "<urn:sessiontoken>\(token)</urn:sessiontoken><urn:entity>\(queryDef)</urn:entity>")
        return (reply, reply.payload?.element("pdomOutput")?.elements.first)
    }
}

@Suite("SOAP router", .timeLimit(.minutes(2)))
struct SOAPRouterTests {
    private func loggedOn(_ adjust: (inout Configuration) -> Void = { _ in }) throws
        -> (InProcessServer, SOAPTestClient)
    {
        let live = try InProcessServer.withSDKApplications(adjust)
        var client = SOAPTestClient(live: live)
        let reply = try client.logon()
        #expect(reply.status == 200)
        return (live, client)
    }

    @Test func logonAnswersBothTokensAndSessionInfo() throws {
        let (_, client) = try loggedOn()
        #expect(client.token.hasPrefix("___"))
        #expect(client.securityToken?.hasPrefix("@") == true)
        let reply = try client.call("xtk:session", "Logoff", "<urn:sessiontoken>\(client.token)</urn:sessiontoken>")
        #expect(reply.status == 200)
        #expect(reply.payload?.localName == "LogoffResponse")
        let after = try client.query("<queryDef schema='nms:mobileApp' operation='count'/>")
        #expect(after.reply.status == 403)
        #expect(after.reply.faultString == "XSV-350008 Session has expired or is invalid. Please reconnect.")
    }

    @Test func refusesWrongCredentials() throws {
        let live = try InProcessServer(inMemory: true)
        var client = SOAPTestClient(live: live)
        let reply = try client.logon(password: "nope")
        #expect(reply.status == 500)
        #expect(reply.faultString == "SOP-330011 Error while executing the method 'Logon' of service 'xtk:session'.")
        #expect(reply.faultDetail == "Invalid login or password. Connection denied.")
    }

    /// Adobe's acc-js-sdk samples log on as `mc`/`mc`: accepted by default, beside `admin`.
    @Test func severalOperatorsLogOnAndEachIsWhoItSays() throws {
        let live = try InProcessServer(inMemory: true)
        var client = SOAPTestClient(live: live)
        for login in ["admin", "mc"] {
            #expect(try client.logon(login: login, password: login).status == 200)
            let info = try client.call(
                "xtk:session", "GetUserInfo", "<urn:sessiontoken>\(client.token)</urn:sessiontoken>")
            #expect(info.payload?.element("pUserInfo")?.elements.first?.attribute("login") == login)
        }
        #expect(try client.logon(login: "mc", password: "admin").status == 500)

        let own = try InProcessServer(inMemory: true) {
            $0.operators = [SOAPOperator(login: "ops", password: "s3cret:x")]
        }
        var ownClient = SOAPTestClient(live: own)
        #expect(try ownClient.logon(login: "ops", password: "s3cret:x").status == 200)
        #expect(try ownClient.logon(login: "admin", password: "admin").status == 200)
        #expect(try ownClient.logon(login: "mc", password: "mc").status == 500)
    }

    /// The Message Center execution instance is this server, at the address and port it really has.
    @Test func theExecutionInstanceAccountIsThisServer() throws {
        let (live, client) = try loggedOn()
        let (reply, output) = try client.query(
            "<queryDef schema='nms:extAccount' operation='get'><select><node expr='@server'/><node expr='@port'/>"
                + "<node expr='@isMessageCenter'/></select></queryDef>")
        #expect(reply.status == 200)
        #expect(output?.attribute("server") == "http://127.0.0.1:\(live.port)")
        #expect(output?.attribute("port") == String(live.port))
        #expect(output?.attribute("isMessageCenter") == "1")
    }

    @Test func acceptsTheSessionFromTheCookieButOnlyWithItsSecurityToken() throws {
        var (_, client) = try loggedOn()
        let token = client.token
        client.token = ""
        let cookie = ["Cookie": "other=1; __sessiontoken=\(token)"]
        #expect(
            try client.call(
                "xtk:queryDef", "ExecuteQuery",
                "<urn:sessiontoken/><urn:entity><queryDef schema='nms:mobileApp' operation='count'/></urn:entity>",
                headers: cookie
            ).status == 200)
        client.securityToken = nil
        let withoutSecurity = try client.call(
            "xtk:queryDef", "ExecuteQuery",
            "<urn:sessiontoken/><urn:entity><queryDef schema='nms:mobileApp' operation='count'/></urn:entity>",
            headers: cookie)
        #expect(withoutSecurity.status == 403)
        #expect(withoutSecurity.faultDetail == "missing or wrong X-Security-Token")
    }

    @Test func acceptsLoginSlashPasswordAsTheToken() throws {
        let live = try InProcessServer.withSDKApplications()
        var client = SOAPTestClient(live: live)
        client.token = "admin/admin"
        #expect(
            try client.query("<queryDef schema='nms:mobileApp' operation='count'/>").output?.attribute("count") == "3")
        client.token = "admin/wrong"
        #expect(try client.query("<queryDef schema='nms:mobileApp' operation='count'/>").reply.status == 403)
    }

    @Test func sessionsExpire() throws {
        let (_, client) = try loggedOn { $0.soapSessionTimeoutMilliseconds = 300 }
        #expect(try client.query("<queryDef schema='nms:mobileApp' operation='count'/>").reply.status == 200)
        usleep(500_000)
        let expired = try client.query("<queryDef schema='nms:mobileApp' operation='count'/>")
        #expect(expired.reply.status == 403)
        #expect(expired.reply.faultDetail == "the session expired")
    }

    @Test func subscribesAndUnsubscribesRecipients() throws {
        let (_, client) = try loggedOn()
        let recipient = "<urn:content><recipient _key='@email' email='jo@example.com' lastName='Jo'/></urn:content>"
        let session = "<urn:sessiontoken>\(client.token)</urn:sessiontoken>"
        let noCreate = try client.call(
            "nms:subscription", "Subscribe",
            session + "<urn:service>SDK iOS test app</urn:service>" + recipient + "<urn:create>false</urn:create>")
        #expect(noCreate.status == 500)
        #expect(noCreate.faultDetail == "No recipient with email 'jo@example.com'")
        let created = try client.call(
            "nms:subscription", "Subscribe",
            session + "<urn:service>SDK iOS test app</urn:service>" + recipient + "<urn:create>true</urn:create>")
        #expect(created.status == 200)
        #expect(created.payload?.localName == "SubscribeResponse")
        let unknownService = try client.call(
            "nms:subscription", "Subscribe",
            session + "<urn:service>Newsletter</urn:service>" + recipient + "<urn:create>true</urn:create>")
        #expect(unknownService.faultDetail == "Unknown service 'Newsletter' (services are the applications' names)")
        #expect(
            try client.query("<queryDef schema='nms:subscription' operation='count'/>").output?.attribute("count")
                == "1")

        #expect(
            try client.call("nms:subscription", "Unsubscribe", session + "<urn:service/>" + recipient).status == 200)
        let blacklisted = try client.query(
            "<queryDef schema='nms:recipient' operation='get'><select><node expr='@blackList'/><node expr='@lastName'/></select></queryDef>"
        )
        #expect(blacklisted.output?.attribute("blackList") == "1")
        #expect(blacklisted.output?.attribute("lastName") == "Jo")
        let unknownRecipient = "<urn:content><recipient email='nobody@example.com'/></urn:content>"
        #expect(
            try client.call(
                "nms:subscription", "Unsubscribe",
                session + "<urn:service>SDK iOS test app</urn:service>" + unknownRecipient
            ).status == 200)
    }

    @Test func queriesDevicesWithConditionsOrderAndOperations() throws {
        let (live, client) = try loggedOn()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        let select = try client.query(
            """
            <queryDef schema="nms:appSubscriptionRcp" operation="select" lineCount="10">\
            <select><node expr="@registrationToken"/><node expr="@userPoints"/><node expr="[mobileApp/@uuid]"/></select>\
            <where><condition expr="@osName = 'iOS' or (@deviceImei = '12345' and @userKey &lt;&gt; 'x')"/></where>\
            <orderBy><node expr="@registrationToken" sortDesc="true"/></orderBy></queryDef>
            """)
        #expect(select.output?.localName == "appSubscriptionRcp-collection")
        let rows = select.output?.elements ?? []
        #expect(rows.map { $0.attribute("registrationToken") } == ["testToken", "70757368546f6b656e"])
        #expect(rows.map { $0.attribute("userPoints") } == [nil, "3233"])
        #expect(rows.map { $0.element("mobileApp")?.attribute("uuid") } == ["testIntegrationKey", "integrationKey"])

        let limited = try client.query(
            "<queryDef schema='nms:appSubscriptionRcp' lineCount='1'><select><node expr='@id'/></select></queryDef>")
        #expect(limited.output?.elements.count == 1)
        let get = try client.query(
            "<queryDef schema='nms:appSubscriptionRcp' operation='get'><select><node expr='@userKey'/></select><where><condition expr=\"@registrationToken = 'testToken'\"/></where></queryDef>"
        )
        #expect(get.output?.localName == "appSubscriptionRcp")
        #expect(get.output?.attribute("userKey") == "testUser")
        let missing = try client.query(
            "<queryDef schema='nms:appSubscriptionRcp' operation='get'><select><node expr='@userKey'/></select><where><condition expr=\"@userKey = 'none'\"/></where></queryDef>"
        )
        #expect(missing.reply.faultDetail == "No record found")
        let ifExists = try client.query(
            "<queryDef schema='nms:appSubscriptionRcp' operation='getIfExists'><select><node expr='@userKey'/></select><where><condition expr=\"@userKey = 'none'\"/></where></queryDef>"
        )
        #expect(ifExists.reply.status == 200)
        #expect(ifExists.output?.attributes.isEmpty == true)
        let apps = try client.query(
            "<queryDef schema='nms:mobileApp' operation='count'><where><condition expr=\"@platform = 'ios'\"/></where></queryDef>"
        )
        #expect(apps.output?.attribute("count") == "2")
        let newer = try client.query(
            "<queryDef schema='nms:appSubscriptionRcp' operation='count'><where><condition expr=\"@created &gt; '2000-01-01 00:00:00'\"/></where></queryDef>"
        )
        #expect(newer.output?.attribute("count") == "2")
    }

    @Test func queryResultsMatchTheAdminAPIForDevicesAndTrackingLogs() throws {
        let (live, client) = try loggedOn()
        #expect(try live.register(.ios, SDKBodies.iOS).status == 200)
        #expect(try live.register(.android, SDKBodies.android).status == 200)
        try live.issueMessage("-673096100", delivery: "7a3f1", token: "70757368546f6b656e")
        for id in ["hd7e15e5c,7a3f1,1", "hd7e15e5c,7a3f1,2", "h3039,other,1"] {
            #expect(try live.request("GET", "/r/?id=\(id)").status == 200)
        }
        let devices = try client.query(
            "<queryDef schema='nms:appSubscriptionRcp'><select><node expr='@registrationToken'/><node expr='@userKey'/></select></queryDef>"
        )
        let admin = try live.json("GET", "/_mock/devices?after=0").object["devices"] as? [[String: Any]] ?? []
        #expect(
            devices.output?.elements.map { $0.attribute("registrationToken") ?? "" }
                == admin.map { $0["registrationToken"] as? String ?? "" })
        #expect(
            devices.output?.elements.map { $0.attribute("userKey") ?? "" }
                == admin.map { $0["userKey"] as? String ?? "" })

        let logs = try client.query(
            """
            <queryDef schema='nms:trackingLogAppSubRcp'><select><node expr='@id'/><node expr='@rawId'/><node expr='@tagId'/>\
            <node expr='@broadLog-id'/><node expr='[appSubscription/@registrationToken]'/></select></queryDef>
            """)
        let events = try live.events("after=0")
        let rows = logs.output?.elements ?? []
        #expect(rows.map { $0.attribute("id") ?? "" } == events.map { String(describing: $0["id"] ?? "") })
        #expect(rows.map { $0.attribute("rawId") } == events.map { $0["rawId"] as? String })
        #expect(rows.map { $0.attribute("tagId") } == events.map { ($0["tag"] as? Int).map(String.init) })
        #expect(
            rows.map { $0.attribute("broadLog-id") }
                == events.map { ($0["linked"] as? [String: Any])?["messageId"] as? String })
        #expect(
            rows.map { $0.element("appSubscription")?.attribute("registrationToken") }
                == events.map { ($0["linked"] as? [String: Any])?["registrationToken"] as? String })
        let opens = try client.query(
            "<queryDef schema='nms:trackingLogAppSubRcp' operation='count'><where><condition expr=\"@tagId = 2 and [broadLog/@id] = '-673096100'\"/></where></queryDef>"
        )
        #expect(opens.output?.attribute("count") == "1")
    }

    struct BadQuery: Sendable, CustomTestStringConvertible {
        let queryDef: String
        let detail: String
        var testDescription: String { detail }
    }

    static let badQueries: [BadQuery] = [
        .init(
            queryDef: "<queryDef schema='nms:delivery'><select><node expr='@id'/></select></queryDef>",
            detail: "schema 'nms:delivery' is not supported"),
        .init(
            queryDef: "<queryDef schema='nms:mobileApp'><select><node expr='@nope'/></select></queryDef>",
            detail: "'@nope' is not a field of nms:mobileApp"),
        .init(
            queryDef: "<queryDef schema='nms:mobileApp'><select><node expr='Count(@id)'/></select></queryDef>",
            detail: "is not a field"),
        .init(
            queryDef:
                "<queryDef schema='nms:mobileApp'><select><node expr='@id'/></select><where><condition expr=\"@name LIKE 'x%'\"/></where></queryDef>",
            detail: "'LIKE' is not supported"),
        .init(
            queryDef:
                "<queryDef schema='nms:mobileApp'><select><node expr='@id'/></select><where><condition expr='@name IS NULL'/></where></queryDef>",
            detail: "'IS' is not supported"),
        .init(
            queryDef: "<queryDef schema='nms:mobileApp' operation='delete'/>",
            detail: "operation 'delete' is not supported"),
        .init(queryDef: "<queryDef schema='nms:mobileApp'/>", detail: "queryDef has no select/node"),
        .init(
            queryDef: "<queryDef schema='nms:mobileApp' lineCount='-1'><select><node expr='@id'/></select></queryDef>",
            detail: "lineCount must be a positive integer"),
        .init(
            queryDef:
                "<queryDef schema='nms:mobileApp'><select><node expr='@id'/></select><where><condition expr=\"(@name = 'a'\"/></where></queryDef>",
            detail: "missing ')'"),
        .init(
            queryDef:
                "<queryDef schema='nms:mobileApp'><select><node expr='@id'/></select><where><condition expr=\"@name = 'a\"/></where></queryDef>",
            detail: "unterminated string"),
        .init(
            queryDef:
                "<queryDef schema='nms:appSubscriptionRcp'><select><node expr='@id'/></select><where><condition expr=\"@created = 'yesterday'\"/></where></queryDef>",
            detail: "is not a date"),
    ]

    @Test("an unsupported query is a Client fault naming the problem", arguments: badQueries)
    func refusesUnsupportedQueries(_ bad: BadQuery) throws {
        let (_, client) = try loggedOn()
        let reply = try client.query(bad.queryDef).reply
        #expect(reply.status == 500)
        #expect(
            reply.faultString == "SOP-330011 Error while executing the method 'ExecuteQuery' of service 'xtk:queryDef'."
        )
        #expect(reply.faultDetail?.contains(bad.detail) == true, "\(reply.faultDetail ?? reply.body)")
    }

    @Test func answersFaultsForUnknownMethodsAndMalformedMessages() throws {
        let (live, client) = try loggedOn()
        let unknown = try client.call("xtk:session", "ExportPackage", "")
        #expect(unknown.status == 500)
        #expect(
            unknown.faultString == "SOP-330006 The method 'ExportPackage' is not defined in SOAP service 'xtk:session'."
        )
        #expect(unknown.payload?.element("faultcode")?.text == "SOAP-ENV:Client")
        #expect(
            try client.call("nms:delivery", "Prepare", "").faultString
                == "SOP-330006 The method 'Prepare' is not defined in SOAP service 'nms:delivery'.")

        let broken = try client.post("<soapenv:Envelope", headers: ["SOAPAction": "xtk:session#Logon"])
        #expect(broken.status == 500)
        #expect(broken.faultString == "The XML SOAP message is invalid (service 'xtk:session', method 'Logon').")
        #expect(broken.body.contains("<![CDATA["))

        let mismatch = try client.call("xtk:session", "Logon", "", headers: ["SOAPAction": "xtk:session#Logoff"])
        #expect(mismatch.faultDetail?.contains("does not match") == true)
        let viaQuery = try live.request(
            "POST", "/nl/jsp/soaprouter.jsp?soapAction=xtk:session%23Logoff",
            body:
                "<e:Envelope xmlns:e='http://schemas.xmlsoap.org/soap/envelope/'><e:Body><m:Logon xmlns:m='urn:xtk:session'/></e:Body></e:Envelope>"
        )
        #expect(viaQuery.body.contains("does not match"))

        let soap12 = try client.post(
            "<e:Envelope xmlns:e='http://www.w3.org/2003/05/soap-envelope'><e:Body/></e:Envelope>", headers: [:])
        #expect(soap12.payload?.element("faultcode")?.text == "SOAP-ENV:VersionMismatch")
        #expect(try live.request("GET", "/nl/jsp/soaprouter.jsp").status == 405)
        #expect(try live.lastJournalEntry()?.endpoint == "soap")
    }

    @Test func refusesEntityAttacksQuicklyAndWithoutMemoryGrowth() throws {
        let (_, client) = try loggedOn()
        let laughs =
            "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
            + (1...9).map {
                "<!ENTITY lol\($0) \"" + String(repeating: "&lol\($0 - 1 == 0 ? "" : String($0 - 1));", count: 10)
                    + "\">"
            }.joined()
            + "]><soapenv:Envelope xmlns:soapenv='http://schemas.xmlsoap.org/soap/envelope/'><soapenv:Body>&lol9;</soapenv:Body></soapenv:Envelope>"
        let attacks = [
            laughs,
            "<?xml version='1.0'?><!DOCTYPE foo [<!ENTITY xxe SYSTEM 'file:///etc/passwd'>]><e:Envelope xmlns:e='http://schemas.xmlsoap.org/soap/envelope/'><e:Body>&xxe;</e:Body></e:Envelope>",
            "<!DOCTYPE e SYSTEM 'http://127.0.0.1:1/evil.dtd'><e:Envelope xmlns:e='http://schemas.xmlsoap.org/soap/envelope/'/>",
            "<e:Envelope xmlns:e='http://schemas.xmlsoap.org/soap/envelope/'><e:Body>&xxe;</e:Body></e:Envelope>",
        ]
        let before = ResidentMemory.megabytes()
        let started = Date()
        for _ in 0..<50 {
            for attack in attacks {
                let reply = try client.post(attack, headers: ["SOAPAction": "xtk:session#Logon"])
                #expect(reply.status == 500)
                #expect(reply.faultString == "The XML SOAP message is invalid (service 'xtk:session', method 'Logon').")
            }
        }
        #expect(Date().timeIntervalSince(started) < 10, "200 refusals must be quick")
        if let before, let after = ResidentMemory.megabytes() {
            #expect(after - before < 50, "memory grew from \(before) to \(after) MB")
        }
    }

    @Test func servesAWSDLForEverySchema() throws {
        let live = try InProcessServer(inMemory: true)
        for schema in ["xtk:session", "nms:subscription", "xtk:queryDef"] {
            let response = try live.request("GET", "/nl/jsp/schemawsdl.jsp?schema=\(schema)")
            #expect(response.status == 200)
            let root = try XMLReader.parse(Array(response.body.utf8))
            #expect(root.localName == "definitions")
            #expect(response.body.contains("location=\"http://127.0.0.1:\(live.port)/nl/jsp/soaprouter.jsp\""))
        }
        let missing = try live.request("GET", "/nl/jsp/schemawsdl.jsp?schema=nms:delivery")
        #expect(missing.status == 404)
        #expect(missing.body.contains("No WSDL for schema 'nms:delivery'"))
    }
}
