import CampaignMockHTTP
import CampaignMockNetwork
import CampaignMockSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Sends messages through FCM's HTTP v1 API with a service account: the OAuth 2.0 JWT-bearer grant
/// (an RS256 assertion signed with the account's key) gives an access token, kept until a minute before
/// it expires, and each message is a `POST …/v1/projects/{project}/messages:send`.
///
/// Used by one thread at a time (``PushSender``'s queue).
final class FCMClient {
    /// Google's JSON is snake_case (`project_id`, `access_token`).
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    /// The fields of a service account's JSON key file that the grant needs.
    struct ServiceAccount: Decodable {
        var type: String
        var projectId: String
        var privateKeyId: String
        var privateKey: String
        var clientEmail: String
        var tokenUri: String
    }

    let projectID: String
    private let account: ServiceAccount
    private let key: SigningKey
    private let tokenEndpoint: HTTPClient.Endpoint
    private let sendEndpoint: HTTPClient.Endpoint
    private let tls: TLSClientContext
    private var accessToken: (text: String, expires: ContinuousClock.Instant)?
    private let timeoutSeconds: Int

    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    /// Reads the service account now, so a bad file is reported at start.
    ///
    /// - Throws: ``ProviderSetupError`` naming what is wrong (never the key's content).
    init(settings: ProviderSettings.FCM, tls: TLSClientContext, timeoutSeconds: Int = 15) throws(ProviderSetupError) {
        let source = settings.serviceAccount
        guard let bytes = source.bytes else { throw ProviderSetupError("\(source): cannot be read") }
        do {
            account = try Self.decoder.decode(ServiceAccount.self, from: Data(bytes))
        } catch {
            throw ProviderSetupError(
                "\(source) is not a service account's JSON key (it needs type, project_id, "
                    + "private_key_id, private_key, client_email and token_uri)")
        }
        guard account.type == "service_account" else {
            throw ProviderSetupError("\(source) has type '\(account.type)', not service_account")
        }
        do {
            key = try SigningKey(pem: Array(account.privateKey.utf8))
        } catch {
            throw ProviderSetupError("the private_key of \(source) is \(error)")
        }
        guard key.algorithm == .rs256 else {
            throw ProviderSetupError("the private_key of \(source) is not an RSA key")
        }
        do {
            tokenEndpoint = try HTTPClient.Endpoint(url: account.tokenUri, allowHTTPS: true)
            sendEndpoint = try HTTPClient.Endpoint(url: settings.endpoint, allowHTTPS: true)
        } catch {
            throw ProviderSetupError("\(source): \(error.message)")
        }
        projectID = account.projectId
        self.tls = tls
        self.timeoutSeconds = timeoutSeconds
    }

    /// Sends `message` (the composed `{"message": {...}}`).
    ///
    /// - Throws: ``ProviderFailure`` when no answer came (unreachable, or the token grant failed).
    func send(_ message: [UInt8]) throws(ProviderFailure) -> ProviderAnswer {
        var answer = try post(message, bearer: try bearer())
        if answer.status == 401 && answer.reason == "UNAUTHENTICATED" {
            // The access token was revoked or expired early: ask for a new one, once. Another 401, such as
            // THIRD_PARTY_AUTH_ERROR (FCM could not authenticate with APNs), is not about this token.
            accessToken = nil
            answer = try post(message, bearer: try bearer())
        }
        return answer
    }

    private struct Accepted: Decodable { var name: String }
    private struct ErrorBody: Decodable {
        struct Detail: Decodable { var errorCode: String? }
        struct Failure: Decodable {
            var status: String?
            var message: String?
            var details: [Detail]?
        }
        var error: Failure
    }

    /// One request, and FCM's answer.
    private func post(_ message: [UInt8], bearer: String) throws(ProviderFailure) -> ProviderAnswer {
        let response: HTTPClient.Response
        do {
            response = try HTTPClient.send(
                .post, "/v1/projects/\(projectID)/messages:send", to: sendEndpoint,
                headers: [.authorization: "Bearer \(bearer)", .contentType: "application/json"], body: message,
                timeoutSeconds: timeoutSeconds, tls: tls, limits: limits)
        } catch {
            throw ProviderFailure("FCM at \(sendEndpoint.authority): \(error.message)")
        }
        if response.status == 200 {
            let accepted = try? JSONDecoder().decode(Accepted.self, from: Data(response.body))
            return ProviderAnswer(
                status: 200, providerId: accepted?.name,
                explanation: ProviderExplanation.fcm(status: 200, reason: nil, message: nil, project: projectID))
        }
        // The FcmError detail's `errorCode` when there is one, else the error's `status`.
        let error = (try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body)))?.error
        let reason = error?.details?.lazy.compactMap(\.errorCode).first ?? error?.status
        return ProviderAnswer(
            status: response.status, reason: reason,
            explanation: ProviderExplanation.fcm(
                status: response.status, reason: reason, message: error?.message, project: projectID,
                retryAfter: response.headers[.retryAfter]))
    }

    /// What FCM and the token endpoint answer is small: a broken endpoint or proxy that sends more, or
    /// never finishes, costs a send at most this, then fails it.
    private var limits: HTTPClient.Limits {
        HTTPClient.Limits(headBytes: 64 << 10, bodyBytes: 1 << 20, seconds: timeoutSeconds)
    }

    private struct Assertion: Encodable {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int
        var exp: Int
    }

    private struct Grant: Decodable {
        var accessToken: String
        var expiresIn: Int
    }

    private struct GrantRefusal: Decodable {
        var error: String
        var errorDescription: String?
    }

    /// How long a granted token is used: its `expires_in` less a minute, within what Google grants (an
    /// hour) and never below zero, whatever number a broken endpoint answers.
    static func lifetime(expiresIn: Int) -> Duration {
        .seconds(min(max(expiresIn, 60), 3600) - 60)
    }

    /// The access token, asked for anew a minute before the last one expires.
    private func bearer() throws(ProviderFailure) -> String {
        if let accessToken, ContinuousClock.now < accessToken.expires { return accessToken.text }
        let now = Int(Date().timeIntervalSince1970)
        let assertion: String
        do {
            assertion = try JSONWebToken.sign(
                Assertion(
                    iss: account.clientEmail, scope: Self.scope, aud: account.tokenUri, iat: now, exp: now + 3600),
                keyID: account.privateKeyId, key: key)
        } catch {
            throw ProviderFailure("signing the OAuth assertion: \(error)")
        }
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        let response: HTTPClient.Response
        do {
            response = try HTTPClient.send(
                .post, "", to: tokenEndpoint, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: Array(form.utf8), timeoutSeconds: timeoutSeconds, tls: tls, limits: limits)
        } catch {
            throw ProviderFailure("the OAuth token endpoint \(tokenEndpoint.authority): \(error.message)")
        }
        guard response.status == 200, let grant = try? Self.decoder.decode(Grant.self, from: Data(response.body))
        else {
            let refusal = try? Self.decoder.decode(GrantRefusal.self, from: Data(response.body))
            let reason = refusal.map { [$0.error, $0.errorDescription].compactMap { $0 }.joined(separator: ": ") }
            throw ProviderFailure(
                "the OAuth token endpoint refused the service account (\(response.status)\(reason.map { ", \($0)" } ?? ""))"
            )
        }
        accessToken = (grant.accessToken, .now + Self.lifetime(expiresIn: grant.expiresIn))
        return grant.accessToken
    }
}
