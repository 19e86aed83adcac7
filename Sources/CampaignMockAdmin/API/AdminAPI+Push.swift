import CampaignMockHTTP
import CampaignMockModel
import CampaignMockPush
import CampaignMockStorage

/// `POST /_mock/push`, `GET /_mock/push/{id}`: compose the notification a device would receive;
/// `POST /_mock/push/{id}/send`: send it to the real device through APNs or FCM;
/// `POST /_mock/push/check`: check a payload built elsewhere.
extension AdminAPI {
    func registerPush(on group: inout RouteGroup) {
        group.add(.post, "/_mock/push", respond: compose)
        group.add(.get, "/_mock/push", respond: listPushes)
        group.add(.get, "/_mock/push/{id}", respond: showPush)
        group.add(.post, "/_mock/push/{id}/send", sendPush)
        group.add(.post, "/_mock/push/check", respond: checkPayload)
        group.add(.get, "/_mock/devices/{token}/trust", respond: showTrust)
        group.add(.post, "/_mock/devices/{token}/trust") { _, parameters in try trust(parameters, true) }
        group.add(.delete, "/_mock/devices/{token}/trust") { _, parameters in try trust(parameters, false) }
    }

    /// Whether the token is trusted for real sends (explicit trust only; the device's JSON says which
    /// allow-list pattern matches it).
    private func showTrust(_ request: HTTPRequest, _ parameters: RouteParameters) throws -> HTTPResponse {
        let token = try knownToken(parameters)
        return AdminResponse.json(.ok, DeviceTrust(registrationToken: token, trusted: sender.isTrusted(token)))
    }

    /// The `{token}` of the route, which some application has a device of (trust is by token), else `404`.
    private func knownToken(_ parameters: RouteParameters) throws -> String {
        let token = parameters["token"] ?? ""
        guard try hasDevice(token) else { throw AdminError(.notFound, "no device with registration token '\(token)'") }
        return token
    }

    /// Whether any application has a device of `token`.
    func hasDevice(_ token: String) throws -> Bool {
        try !store.read { try $0.devices(token: token, applicationKey: nil) }.isEmpty
    }

    /// Trust is by token and lasts while a device has it: the trusted tokens no device has any more (a
    /// device removed, an application's devices reset) are trusted no more.
    func distrustTokensWithoutDevice() throws {
        for token in sender.trustedTokens where try !hasDevice(token) { sender.distrust(token) }
    }

    /// `GET /_mock/push`: the composed pushes, newest first, each with its sends and hits.
    private func listPushes(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try AdminResponse.query(request)
        try AdminResponse.allowOnly(query, ["before", "after", "limit"])
        let paging = try AdminResponse.paging(query)
        let limit = try AdminResponse.integer(query, "limit", in: 1...200, default: 50)
        return AdminResponse.json(.ok, try store.read { try $0.pushes(paging, limit: Int(limit)) })
    }

    /// Trusts the token for real sends (``PushSender/trust(_:)``), or takes it back: a step the developer
    /// takes on this machine, through the admin API's access checks, which a device cannot take for itself.
    private func trust(_ parameters: RouteParameters, _ trusted: Bool) throws -> HTTPResponse {
        let token = try knownToken(parameters)
        if trusted { sender.trust(token) } else { sender.distrust(token) }
        return AdminResponse.json(.ok, DeviceTrust(registrationToken: token, trusted: trusted))
    }

    private func compose(_ request: HTTPRequest) throws -> HTTPResponse {
        let push = try AdminResponse.decode(PushRequest.self, from: request)
        do {
            try push.validate()
        } catch {
            throw AdminError(.badRequest, error.message)
        }
        let style = push.idStyle ?? pushIDStyle
        do {
            let composed = try store.writeAndWait {
                try $0.createPush(push, style: style, compose: PushComposer.message)
            }
            sender.composed(composed, fromPage: request.crossSiteOrigin)
            return AdminResponse.json(.created, composed)
        } catch let error as PushError {
            throw AdminError(error.isNotFound ? .notFound : .badRequest, error.message)
        }
    }

    private func checkPayload(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try AdminResponse.decode(PayloadCheck.Request.self, from: request)
        do {
            let (platform, payload) = try body.payload()
            let check = platform == .ios ? PayloadChecker.apns(payload) : PayloadChecker.fcm(payload)
            return AdminResponse.json(.ok, check)
        } catch {
            throw AdminError(.badRequest, error.message)
        }
    }

    private func showPush(_ request: HTTPRequest, _ parameters: RouteParameters) throws -> HTTPResponse {
        AdminResponse.json(.ok, try storedPush(parameters))
    }

    private func storedPush(_ parameters: RouteParameters) throws -> ComposedPush {
        guard let id = parameters["id"].flatMap({ Int64($0) }), let push = try store.read({ try $0.push(id: id) })
        else {
            throw AdminError(.notFound, "no push with id '\(parameters["id"] ?? "")'")
        }
        return push
    }

    /// Answers once every message is sent (or blocked), each answer stored; the sending runs on the
    /// sender's queue, never on the thread that read the request.
    private func sendPush(_ request: HTTPRequest, _ parameters: RouteParameters, _ reply: ReplyChannel) throws {
        // Only a page that holds the admin token gets this far; even then a page never causes a send.
        if let page = request.crossSiteOrigin {
            throw AdminError(
                .forbidden,
                "a push is never sent for a web page (this request comes from \(page)); send it from "
                    + "the console or from a client that is not a browser")
        }
        let push = try storedPush(parameters)
        let options =
            request.body.isEmpty ? PushSendRequest() : try AdminResponse.decode(PushSendRequest.self, from: request)
        if let token = options.registrationToken, !push.messages.contains(where: { $0.registrationToken == token }) {
            throw AdminError(.notFound, "push \(push.id) has no message to token '\(token)'")
        }
        if let problem = options.apnsTopic.flatMap(ProviderInput.topicProblem) {
            throw AdminError(.badRequest, problem)
        }
        if let token = options.registrationToken,
            let message = push.messages.first(where: { $0.registrationToken == token }),
            let problem = ProviderInput.tokenProblem(token, for: message.platform == .ios ? .apns : .fcm)
        {
            throw AdminError(.badRequest, problem)
        }
        sender.send(push, token: options.registrationToken, topic: options.apnsTopic) { sends in
            reply.send(AdminResponse.json(.ok, PushSendList(sends: sends)))
        }
    }
}
