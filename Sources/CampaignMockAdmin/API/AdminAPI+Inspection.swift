import CampaignMockChecks
import CampaignMockHTTP
import CampaignMockModel
import CampaignMockPush
import CampaignMockRuntime
import CampaignMockStorage
import CampaignMockSystem

/// `/_mock/apps`, `/_mock/devices`, `/_mock/events`: what the SDK endpoints stored.
extension AdminAPI {
    func registerInspection(on group: inout RouteGroup) {
        group.add(.get, "/_mock/apps", respond: listApplications)
        group.add(.post, "/_mock/apps", respond: addApplication)
        group.add(.put, "/_mock/apps/{key}", respond: updateApplication)
        group.add(.delete, "/_mock/apps/{key}", respond: deleteApplication)
        group.add(.get, "/_mock/devices", respond: listDevices)
        group.add(.get, "/_mock/devices/{token}", respond: showDevice)
        group.add(.delete, "/_mock/devices/{token}", respond: deleteDevice)
        group.add(.get, "/_mock/events", respond: listEvents)
    }

    // MARK: - Applications

    private func listApplications(_ request: HTTPRequest) throws -> HTTPResponse {
        AdminResponse.json(.ok, ApplicationList(apps: try store.read { try $0.applications() }))
    }

    private struct NewApplication: Codable {
        let name: String?
        let platform: String
        let integrationKey: String
        let enabled: Bool?
        let bundleId: String?
        let packageName: String?
    }

    private func addApplication(_ request: HTTPRequest) throws -> HTTPResponse {
        let body: NewApplication = try AdminResponse.decode(NewApplication.self, from: request)
        guard let platform = Platform(rawValue: body.platform) else {
            throw AdminError(.badRequest, "platform must be 'ios' or 'android', got '\(body.platform)'")
        }
        let application = Application(
            name: body.name ?? Application.defaultName(platform, body.integrationKey), platform: platform,
            integrationKey: body.integrationKey, enabled: body.enabled ?? true, bundleId: body.bundleId,
            packageName: body.packageName)
        try Self.validate(application)
        do {
            try store.writeAndWait { try $0.insertApplication(application) }
        } catch let conflict as StoreConflict {
            throw AdminError(.conflict, conflict.message)
        }
        stream.publish(.app, application, facts: [.app: application.integrationKey])
        return AdminResponse.json(.created, application)
    }

    /// `PUT /_mock/apps/{key}`: the fields given change; `""` clears `bundleId` or `packageName`.
    private struct ApplicationChange: Codable {
        let name: String?
        let enabled: Bool?
        let bundleId: String?
        let packageName: String?

        func apply(to application: inout Application) {
            application.name = name ?? application.name
            application.enabled = enabled ?? application.enabled
            if let bundleId { application.bundleId = bundleId.isEmpty ? nil : bundleId }
            if let packageName { application.packageName = packageName.isEmpty ? nil : packageName }
        }
    }

    private func updateApplication(_ request: HTTPRequest, _ parameters: RouteParameters) throws -> HTTPResponse {
        let key = parameters["key"] ?? ""
        let change = try AdminResponse.decode(ApplicationChange.self, from: request)
        let updated = try store.writeAndWait { transaction -> Application in
            guard var application = try transaction.reader.application(key: key)?.application else {
                throw AdminError(.notFound, "no application with integration key '\(key)'")
            }
            change.apply(to: &application)
            try Self.validate(application)
            _ = try transaction.updateApplication(application)
            return application
        }
        stream.publish(.app, updated, facts: [.app: key])
        return AdminResponse.json(.ok, updated)
    }

    /// ``Application/validate()``, answered as `400`.
    private static func validate(_ application: Application) throws(AdminError) {
        do {
            try application.validate()
        } catch {
            throw AdminError(.badRequest, error.message)
        }
    }

    private func deleteApplication(_ request: HTTPRequest, _ parameters: RouteParameters) throws -> HTTPResponse {
        let key = parameters["key"] ?? ""
        guard try store.writeAndWait({ try $0.deleteApplication(key: key) }) else {
            throw AdminError(.notFound, "no application with integration key '\(key)'")
        }
        stream.publish(.app, ["deleted": key], facts: [.app: key])
        return AdminResponse.json(.ok, ["deleted": key])
    }

    // MARK: - Devices

    private func listDevices(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try AdminResponse.query(request)
        try AdminResponse.allowOnly(
            query, ["app", "userKey", "token", "platform", "q", "before", "after", "limit"], prefix: "param.")
        var filter = try Self.deviceFilter(query)
        filter.search = query["q"].flatMap { $0.isEmpty ? nil : $0 }
        if let search = filter.search, search.count > 200 {
            throw AdminError(.badRequest, "q is at most 200 characters")
        }
        let paging = try AdminResponse.paging(query)
        let limit = try AdminResponse.integer(query, "limit", in: 1...1000, default: 100)
        var page = try store.read { [filter] in try $0.devices(matching: filter, paging, limit: Int(limit)) }
        page.devices = page.devices.map(withTrust)
        page.warning = try filter.applicationKey.flatMap(unknownApplication)
        return AdminResponse.json(.ok, page)
    }

    /// The device with what sending knows of it: whether its token is trusted here, and which pattern of
    /// the allow-list matches it.
    func withTrust(_ device: DeviceSubscription) -> DeviceSubscription {
        var device = device
        device.trusted = sender.isTrusted(device.registrationToken)
        device.sendAllowMatch = sender.allowListMatch(
            SendAllowList.Device(
                userKey: device.userKey, token: device.registrationToken, app: device.application.integrationKey))
        return device
    }

    private func showDevice(_ request: HTTPRequest, _ parameters: RouteParameters) throws -> HTTPResponse {
        AdminResponse.json(.ok, withTrust(try oneDevice(request, parameters)))
    }

    /// The device of the path's token, in the application `?app=` names when the token is in several:
    /// `404` for none, `409` naming the applications when it is in several and none is named.
    private func oneDevice(_ request: HTTPRequest, _ parameters: RouteParameters) throws -> DeviceSubscription {
        let token = parameters["token"] ?? ""
        let application = try AdminResponse.query(request)["app"]
        let devices = try store.read { try $0.devices(token: token, applicationKey: application) }
        guard let device = devices.first else {
            let inApp = application.map { " in application '\($0)'" } ?? ""
            throw AdminError(.notFound, "no device with registration token '\(token)'\(inApp)")
        }
        guard devices.count == 1 else {
            let keys = devices.map(\.application.integrationKey).joined(separator: ", ")
            throw AdminError(
                .conflict, "token '\(token)' is registered in several applications (\(keys)); add ?app=KEY")
        }
        return device
    }

    /// `DELETE /_mock/devices/{token}`: the device, its registrations, its trust and the findings about it go;
    /// its tracking events, messages and composed pushes stay, linked to no device. The answer counts each.
    private func deleteDevice(_ request: HTTPRequest, _ parameters: RouteParameters) throws -> HTTPResponse {
        try AdminResponse.allowOnly(try AdminResponse.query(request), ["app"])
        let device = try oneDevice(request, parameters)
        let token = device.registrationToken
        let key = device.application.integrationKey
        guard let removal = try store.writeAndWait({ try $0.deleteDevice(token: token, applicationKey: key) }) else {
            throw AdminError(.notFound, "no device with registration token '\(token)' in application '\(key)'")
        }
        // Trust is by token: it goes only when no other application has the token.
        let wasTrusted = sender.isTrusted(token)
        try distrustTokensWithoutDevice()
        let findings = checks.forgetDevice(app: key, token: token)
        let answer = DeviceDeletion(
            deleted: removal, trustRemoved: wasTrusted && !sender.isTrusted(token), findingsCleared: findings)
        return AdminResponse.json(.ok, answer)
    }

    // MARK: - Events

    private func listEvents(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try AdminResponse.query(request)
        let mark = try mark(since: query["since"])
        var filter = try Self.eventFilter(mark == nil ? query : query.filter { $0.key != "since" })
        filter.afterID = mark?.event
        filter.registrationToken = query["token"]
        filter.deliveryID = query["deliveryId"]
        let paging = try AdminResponse.paging(query)
        let limit = try AdminResponse.integer(query, "limit", in: 1...1000, default: 100)
        let page = try store.read { [filter] in try $0.events(matching: filter, paging, limit: Int(limit)) }
        return AdminResponse.json(.ok, page)
    }

    /// `tag` (1, 2) or `type` (receive, open), `messageId` (hex as sent, issued decimal, or UUID), `since`.
    static func eventFilter(_ query: [String: String]) throws -> EventFilter {
        var filter = EventFilter()
        let byTag = try query["tag"].map { tag in
            guard let number = Int(tag), let value = TrackingEvent.Kind(tag: number) else {
                throw AdminError(.badRequest, "tag must be 1 or 2")
            }
            return value
        }
        let byType = try query["type"].map { type in
            guard let value = TrackingEvent.Kind(rawValue: type) else {
                throw AdminError(.badRequest, "type must be receive or open")
            }
            return value
        }
        // Filters combine: a tag and a type that disagree match nothing.
        filter.tag = byTag ?? byType
        filter.matchesNothing = byTag != nil && byType != nil && byTag != byType
        if let messageID = query["messageId"] {
            if TrackingID.isUUID(messageID) {
                filter.messageUUID = messageID.lowercased()
            } else if let decimal = Int64(messageID), !messageID.hasPrefix("h") {
                filter.messageValues = MessageIdentity.hexValues(forDecimal: decimal).map { Int64(bitPattern: $0) }
            } else {
                let hex = messageID.hasPrefix("h") ? messageID.dropFirst() : Substring(messageID)
                guard let value = UInt64(hex, radix: 16) else {
                    throw AdminError(.badRequest, "messageId must be a decimal _mId, a hex id as sent, or a UUID")
                }
                filter.messageValues = [Int64(bitPattern: value)]
            }
        }
        if let since = query["since"] {
            filter.since = try Self.timestamp(since)
        }
        return filter
    }

    /// RFC 3339 (`2026-11-22T17:21:28Z`, fractions and offsets allowed) or milliseconds since 1970, as
    /// microseconds.
    static func timestamp(_ text: String) throws -> Int64 {
        if text.count <= 15, text.allSatisfy(\.isASCII), let milliseconds = Int64(text), milliseconds >= 0 {
            return milliseconds * 1000
        }
        guard let micros = RFC3339.microseconds(text) else {
            throw AdminError(
                .badRequest,
                "since must be a mark (POST /_mock/mark), an RFC 3339 time (2026-11-22T17:21:28Z) or milliseconds "
                    + "since 1970")
        }
        return micros
    }
}
