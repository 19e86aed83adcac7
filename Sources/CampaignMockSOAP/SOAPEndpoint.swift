package import CampaignMockHTTP
package import CampaignMockModel
import CampaignMockPush
package import CampaignMockRuntime
package import CampaignMockStorage
import CampaignMockSupport

/// `POST /nl/jsp/soaprouter.jsp` (docs/product.md §3.2): reads the envelope, checks the session, runs the
/// method, and answers with its response envelope or a SOAP fault.
package struct SOAPEndpoint: Sendable {
    let store: Store
    let sessions: SOAPSessions
    /// The message id style of pushes made by `PushEvent`.
    let pushIDStyle: MessageIDStyle
    /// Where this server listens (`nms:extAccount` describes it as an execution instance).
    let server: ServerReference
    /// Told of every push a `PushEvent` composed, after it is stored, with the web page the request came
    /// from, if any (``HTTPRequest/crossSiteOrigin``).
    let composed: @Sendable (ComposedPush, String?) -> Void
    /// The names a browser's request must use (a guard against DNS rebinding): a page on a name of its own
    /// that resolves to this machine would be same-origin here, free to read the store (`ExecuteQuery`)
    /// and to compose pushes that `--auto-send` sends.
    let hosts: HostAllowList

    package func decide(_ request: HTTPRequest) throws -> EndpointResult {
        guard request.method == .post else {
            throw HTTPError(.methodNotAllowed, "The SOAP router takes POST", headers: [.allow: "POST"])
        }
        // Backends and the SDKs send no Origin: they reach the mock by any name.
        if request.isFromPage,
            let refusal = hosts.refusal(host: request.headers[.host], "the SOAP router does not answer a web page on")
        {
            throw HTTPError(.forbidden, refusal)
        }
        // Nor a page of another site: it could not read the answer (no CORS), but with the default
        // operator it could make blind Write, Subscribe or PushEvent calls.
        if let site = request.crossSiteOrigin {
            throw HTTPError(
                .forbidden,
                "the SOAP router does not answer a page on \(ClientText.capped(site, bytes: 128)); backends send no "
                    + "Origin")
        }
        do {
            let call = try SOAPCall(request)
            return try dispatch(call, request)
        } catch {
            let reason = error.string + (error.detail.map { " (\($0))" } ?? "")
            return EndpointResult(response: error.response, reason: reason)
        }
    }

    /// Runs the method the catalogue declares for the call's service; any other is `SOP-330006`. Methods
    /// marked `access="anonymous"` (Logon, BearerTokenLogon, GetServerTime) need no session.
    private func dispatch(_ received: SOAPCall, _ request: HTTPRequest) throws(SOAPFault) -> EndpointResult {
        guard let method = SchemaCatalogue.builtIn.method(service: received.service, name: received.method) else {
            throw .unknownMethod(received.method, service: received.service)
        }
        var call = received
        call.declaration = method
        let token = method.isAnonymous ? "" : try authenticate(call, request)
        // The catalogue decided the service has this method; the names are unique across its schemas.
        switch call.method {
        case "Logon":
            let login = try call.string("strLogin")
            return logon(
                call, method, sessions.logon(login: login, password: try call.string("strPassword")), who: login,
                login: login)
        case "BearerTokenLogon":
            return logon(
                call, method, sessions.logon(bearerToken: try call.string("strBearerToken")), who: "a bearer token",
                login: sessions.operators[0].login)
        case "Logoff":
            sessions.logoff(token)
            return EndpointResult(response: SOAPResponse.outputs(method, service: call.service, []))
        case "GetServerTime":
            return EndpointResult(response: SOAPResponse.outputs(method, service: call.service, [Self.now()]))
        case "GetUserInfo":
            return EndpointResult(
                response: SOAPResponse.outputs(
                    method, service: call.service, [userInfo(login: sessions.login(of: token))]))
        case "GetOption":
            return try getOption(call, method)
        case "Write":
            return try write(call, method)
        case "GetNewIdsEx":
            return try newIDs(call, method)
        case "GetEntityIfMoreRecent":
            return try entityIfMoreRecent(call, method)
        case "Subscribe":
            return try subscribe(call, create: try call.boolean("create"))
        case "Unsubscribe":
            return try unsubscribe(call)
        case "ExecuteQuery":
            return try executeQuery(call, method)
        case "SelectAll":
            return try selectAll(call, method)
        case "BuildQuery", "BuildQueryEx":
            return try buildQuery(call, method)
        case "PushEvent":
            return try pushEvent(call, fromPage: request.crossSiteOrigin)
        case "InstallPackage":
            return try installPackage(call, method)
        default:
            throw .methodFailed(call.method, service: call.service, "campaign-mock does not implement this method yet")
        }
    }

    /// The caller's session token: from an accepted `Authorization: Bearer` token (Campaign v8 technical
    /// accounts, which never log on), else the first parameter or the `__sessiontoken` cookie, checked
    /// with `X-Security-Token` (docs/protocol.md §5.1).
    private func authenticate(_ call: SOAPCall, _ request: HTTPRequest) throws(SOAPFault) -> String {
        try sessions.authenticate(request, token: call.parameters.first?.text.trimmingASCIISpaces() ?? "")
    }

    // MARK: - xtk:session

    private func logon(
        _ call: SOAPCall, _ method: SchemaCatalogue.Method, _ opened: (String, String)?, who: String, login: String
    ) -> EndpointResult {
        guard let (token, security) = opened else {
            let fault = SOAPFault.methodFailed(
                call.method, service: call.service, "Invalid login or password. Connection denied.")
            return EndpointResult(
                response: fault.response, reason: "\(call.method) refused for \(who)")
        }
        let seconds = String(sessions.lifetimeMilliseconds / 1000)
        let serverInfo = XMLOutput.element(
            "serverInfo",
            [
                ("buildNumber", Self.buildNumber), ("majNumber", "8"), ("minNumber", "0"), ("servicePack", "0"),
                ("releaseName", "campaign-mock \(CampaignMockVersion.current)"), ("instanceName", "campaign-mock"),
                ("sessionTimeOut", seconds), ("securityTimeOut", seconds), ("serverDate", Self.now()),
            ])
        let sessionInfo = XMLOutput.element("sessionInfo", content: serverInfo + userInfo(login: login))
        return EndpointResult(
            response: SOAPResponse.outputs(method, service: call.service, [token, sessionInfo, security]))
    }

    // MARK: - nms:subscription

    private func subscribe(_ call: SOAPCall, create: Bool) throws(SOAPFault) -> EndpointResult {
        let service = try call.string("service").trimmingASCIISpaces()
        let recipient = try recipientKey(call)
        do {
            guard try store.read({ try $0.serviceExists(service) }) else {
                throw SOAPFault.methodFailed(
                    call.method, service: call.service,
                    "Unknown service '\(service)' (services are the applications' names)")
            }
            if !create, try !store.read({ try $0.recipientExists(email: recipient.email) }) {
                throw SOAPFault.methodFailed(
                    call.method, service: call.service, "No recipient with email '\(recipient.email)'")
            }
        } catch let fault as SOAPFault {
            throw fault
        } catch {
            throw SOAPFault(.server, "Error while reading the database", detail: "\(error)")
        }
        return EndpointResult(response: SOAPResponse.method(call.method, service: call.service, "")) { transaction in
            try transaction.subscribe(recipient, to: service)
        }
    }

    private func unsubscribe(_ call: SOAPCall) throws(SOAPFault) -> EndpointResult {
        let service = try call.string("service").trimmingASCIISpaces()
        let recipient = try recipientKey(call)
        return EndpointResult(response: SOAPResponse.method(call.method, service: call.service, "")) { transaction in
            try transaction.unsubscribe(email: recipient.email, from: service.isEmpty ? nil : service)
        }
    }

    /// `<recipient _key="@email" email="…" firstName="…" lastName="…"/>`, as SOAP clients write it; acc-js-sdk
    /// names the element after the parameter (`<content email="…"/>`), so the element's name is not checked.
    private func recipientKey(_ call: SOAPCall) throws(SOAPFault) -> RecipientKey {
        let parameter = try call.document("content")
        let content = parameter.element("recipient") ?? parameter
        let key = content.attribute("_key") ?? "@email"
        guard key == "@email" else {
            throw .badParameters(call.method, service: call.service, "only _key=\"@email\" is supported, not '\(key)'")
        }
        guard let email = content.attribute("email"), !email.isEmpty else {
            throw .badParameters(call.method, service: call.service, "the recipient has no email")
        }
        return RecipientKey(
            email: email, firstName: content.attribute("firstName"), lastName: content.attribute("lastName"))
    }

    // MARK: - nms:rtEvent

    /// A real-time event (docs/protocol.md §5.4), stored as an `nms:rtEvent` whose id is `plId`. A mobile
    /// event (`wishedChannel` 41 or 42, or a `registrationToken`) becomes a push like `POST /_mock/push`,
    /// with the same id: `<ctx>`'s `title` and `body` are the alert, its other simple fields payload
    /// variables. A mobile event that cannot be delivered answers `plId` 0 and is journaled with why, as
    /// Campaign does. Other channels (e-mail, `wishedChannel` 0) are accepted and stored.
    /// - Parameter page: the web page the request came from (``HTTPRequest/crossSiteOrigin``), if any: its
    ///   push is composed, never sent.
    private func pushEvent(_ call: SOAPCall, fromPage page: String?) throws(SOAPFault) -> EndpointResult {
        let event = try call.document("domEvent")
        guard event.localName == "rtEvent" else {
            throw .badParameters(call.method, service: call.service, "domEvent must be an <rtEvent> element")
        }
        guard let context = event.element("ctx") else {
            throw .badParameters(call.method, service: call.service, "rtEvent has no <ctx> element")
        }
        let channel = event.attribute("wishedChannel") ?? ""
        let token = event.attribute("registrationToken") ?? ""
        let app = event.element("mobileApp")?.attribute("uuid") ?? ""
        var stored = RealTimeEvent(
            type: event.attribute("type"), wishedChannel: Int(channel), email: event.attribute("email"),
            registrationToken: token.isEmpty ? nil : token, appKey: app.isEmpty ? nil : app,
            context: XMLOutput.write(context))
        guard channel == "41" || channel == "42" || !token.isEmpty else {
            return try storeEvent(stored, push: nil, fromPage: page)
        }
        guard !token.isEmpty else {
            throw .badParameters(call.method, service: call.service, "a mobile rtEvent needs a registrationToken")
        }
        guard !app.isEmpty else {
            throw .badParameters(call.method, service: call.service, "rtEvent has no <mobileApp uuid=\"…\"/>")
        }
        var push = PushRequest()
        push.token = token
        push.app = app
        var variables: [String: String] = [:]
        for field in context.elements where field.elements.isEmpty {
            variables[field.localName] = field.text
        }
        push.title = variables.removeValue(forKey: "title")
        push.body = variables.removeValue(forKey: "body")
        push.variables = variables.filter { !["aps", "_mId", "_dId"].contains($0.key) }
        if (push.title ?? "").isEmpty && (push.body ?? "").isEmpty { push.silent = true }

        func failed(_ reason: String) -> EndpointResult {
            EndpointResult(response: plID(0), appKey: app, reason: "PushEvent: \(reason)")
        }
        do {
            guard let application = try store.application(key: app)?.application else {
                return failed("unknown integration key \(app)")
            }
            let expected = application.platform == .ios ? "41" : "42"
            guard channel.isEmpty || channel == expected else {
                return failed(
                    "wishedChannel \(channel) does not match \(application.platform.withArticle) application (\(expected))"
                )
            }
            stored.wishedChannel = Int(expected)
            return try storeEvent(stored, push: push, fromPage: page)
        } catch let error as PushError {
            return failed(error.message)
        } catch let fault as SOAPFault {
            throw fault
        } catch {
            throw SOAPFault(.server, "Error while storing the event", detail: "\(error)")
        }
    }

    /// Stores the event (and composes its push) in one transaction; answers its id as `plId`.
    private func storeEvent(_ event: RealTimeEvent, push: PushRequest?, fromPage page: String?) throws(SOAPFault)
        -> EndpointResult
    {
        let style = pushIDStyle
        do {
            let (id, composedPush) = try store.writeAndWait { transaction in
                let id = try transaction.nextEventID()
                let composedPush = try push.map {
                    try transaction.createPush($0, style: style, id: id, compose: PushComposer.message)
                }
                try transaction.insertRealTimeEvent(event, id: id, pushID: push == nil ? nil : id)
                return (id, composedPush)
            }
            if let composedPush { composed(composedPush, page) }
            return EndpointResult(response: plID(id), appKey: event.appKey)
        } catch let error as PushError {
            return EndpointResult(
                response: plID(0), appKey: event.appKey, reason: "PushEvent: \(error.message)")
        } catch {
            throw SOAPFault(.server, "Error while storing the event", detail: "\(error)")
        }
    }

    private func plID(_ value: Int64) -> HTTPResponse {
        SOAPResponse.method(
            "PushEvent", service: "nms:rtEvent",
            XMLOutput.textElement("plId", String(value), attributes: [("xsi:type", "xsd:long")]))
    }

    /// - Parameters:
    ///   - hosts: the names a browser's request must use (``HostAllowList``; by default only loopback's).
    ///   - composed: told of every push an event composed, once it is stored (sending it on).
    package init(
        store: Store, sessions: SOAPSessions, pushIDStyle: MessageIDStyle, server: ServerReference,
        hosts: HostAllowList = HostAllowList(names: []),
        composed: @escaping @Sendable (ComposedPush, String?) -> Void = { _, _ in }
    ) {
        self.hosts = hosts
        self.composed = composed
        self.store = store
        self.sessions = sessions
        self.pushIDStyle = pushIDStyle
        self.server = server
    }
}
