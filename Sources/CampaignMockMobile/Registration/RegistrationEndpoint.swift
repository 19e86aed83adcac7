package import CampaignMockHTTP
package import CampaignMockModel
package import CampaignMockRuntime
package import CampaignMockStorage
import CampaignMockSupport
import CampaignMockSystem

/// `POST /nms/mobile/1/registerIOS.jssp` and `registerAndroid.jssp` (docs/product.md §3.1): checks the request
/// in the order of the response table, then upserts the device and appends its history.
package struct RegistrationEndpoint: Sendable {
    package let platform: Platform
    let store: Store

    package var family: EndpointFamily { .registration(platform) }

    /// The form, read once per request for both the fault rules and the answer.
    package typealias Form = Result<FormBody, RegistrationError>

    package func read(_ request: HTTPRequest) -> Form {
        Result { () throws(RegistrationError) in try FormBody(parsing: request.body) }
    }

    package func decide(_ request: HTTPRequest, _ form: Form) throws -> EndpointResult {
        var appKey: String?
        do {
            let (registration, application) = try parse(request, form, appKey: &appKey)
            return EndpointResult(response: .text(.ok, "OK"), appKey: appKey) { transaction in
                try transaction.register(
                    registration, application: application, receivedAt: Clock.wallClockMicroseconds())
            }
        } catch let error as RegistrationError {
            guard case .unknownIntegrationKey = error else {
                return .refused(error.httpError, appKey: appKey, refusal: error)
            }
            // The app gets the documented body; the log and the journal (the console) also say what to do.
            return EndpointResult(
                response: error.httpError.response, appKey: appKey,
                reason: error.reason + "; " + knownKeysHint(), refusal: error)
        }
    }

    /// Which keys the server knows, and how to add one: for a developer whose app sends another. The reason
    /// already names the unknown key: a second copy of client text would double what the log and the
    /// journal keep of it.
    private func knownKeysHint() -> String {
        let applications = ((try? store.read { try $0.applications() }) ?? []).filter { $0.platform == platform }
        let known =
            applications.isEmpty
            ? "no \(platform.rawValue) application is configured"
            : "the \(platform.rawValue) keys are "
                + applications.map { "\($0.integrationKey) (\($0.name))" }.joined(separator: ", ")
        return "\(known); start with --app \(platform.rawValue):<that key> or POST /_mock/apps to accept it"
    }

    /// The integration key and token a request names, for fault rules (no validation).
    package func identify(_ form: Form) -> (appKey: String?, token: String?) {
        guard case .success(let form) = form else { return (nil, nil) }
        return (form[.mobileAppUuid], form[.registrationToken])
    }

    /// The request, checked in the order of the response table, and the application it names.
    private func parse(_ request: HTTPRequest, _ form: Form, appKey: inout String?) throws
        -> (RegistrationRequest, StoredApplication)
    {
        guard request.method == .post else { throw RegistrationError.methodNotAllowed }
        if let site = request.crossSiteOrigin {
            throw RegistrationError.fromPage(ClientText.capped(site, bytes: 128))
        }
        let contentType = request.headers[.contentType]
        guard let contentType, Self.isFormContentType(contentType) else {
            throw RegistrationError.unsupportedContentType(contentType)
        }
        let form = try form.get()
        var registration = try RegistrationRequest(form: form)
        try RegistrationBounds.check(registration)
        guard !registration.integrationKey.isEmpty else { throw RegistrationError.missingIntegrationKey }
        appKey = registration.integrationKey
        let key = registration.integrationKey
        guard let stored = try store.application(key: key) else {
            throw RegistrationError.unknownIntegrationKey(key)
        }
        let application = stored.application
        guard application.platform == platform else {
            throw RegistrationError.wrongPlatform(key: key, platform: application.platform)
        }
        guard application.enabled else { throw RegistrationError.disabled(name: application.name) }
        guard !registration.registrationToken.isEmpty else { throw RegistrationError.missingRegistrationToken }
        registration.params = try AdditionalParamsReader.parse(form[.additionalParams] ?? "")
        try RegistrationBounds.check(registration.params)
        return (registration, stored)
    }

    /// `application/x-www-form-urlencoded` with any parameters and spacing (docs/product.md §10, U4).
    static func isFormContentType(_ value: String) -> Bool {
        // On the bytes, compared as they go: every registration asks.
        var value = value
        return value.withUTF8 { bytes in
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            var start = 0
            while start < end && (bytes[start] == 32 || bytes[start] == 9) { start += 1 }
            while end > start && (bytes[end - 1] == 32 || bytes[end - 1] == 9) { end -= 1 }
            let expected: StaticString = "application/x-www-form-urlencoded"
            guard end - start == expected.utf8CodeUnitCount else { return false }
            return (0..<(end - start)).allSatisfy { ASCII.lowercased(bytes[start + $0]) == expected.utf8Start[$0] }
        }
    }

    package init(
        platform: Platform, store: Store
    ) {
        self.platform = platform
        self.store = store
    }
}
