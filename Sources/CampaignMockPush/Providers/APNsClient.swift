import CampaignMockModel
import CampaignMockNetwork
import CampaignMockSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Sends payloads to APNs with token-based authentication: an ES256 token signed with the `.p8` key,
/// kept for 30 minutes (Apple refuses tokens older than an hour and new ones more often than every 20
/// minutes), over one HTTP/2 connection kept open between sends, as Apple asks.
///
/// Used by one thread at a time (``PushSender``'s queue).
final class APNsClient {
    let settings: ProviderSettings.APNs
    private let key: SigningKey
    private let endpoint: HTTPClient.Endpoint
    private let tls: TLSClientContext
    private var connection: HTTP2Connection?
    private var token: (text: String, issuedAt: ContinuousClock.Instant)?
    private let timeoutSeconds: Int

    /// How long a token is used before a new one is signed.
    static let tokenLifetime = Duration.seconds(30 * 60)

    /// Reads the key now, so a bad file is reported at start rather than at the first send.
    ///
    /// - Throws: ``ProviderSetupError`` naming the setting that is wrong (never the key's content).
    init(settings: ProviderSettings.APNs, tls: TLSClientContext, timeoutSeconds: Int = 15) throws(ProviderSetupError) {
        self.settings = settings
        self.tls = tls
        self.timeoutSeconds = timeoutSeconds
        guard let pem = settings.key.bytes else { throw ProviderSetupError("\(settings.key): cannot be read") }
        do {
            key = try SigningKey(pem: pem)
        } catch {
            throw ProviderSetupError(
                "\(settings.key) is \(error); APNs needs the .p8 key (EC P-256)")
        }
        guard key.algorithm == .es256 else {
            throw ProviderSetupError(
                "\(settings.key) is an RSA key; APNs needs the .p8 key (EC P-256)")
        }
        do {
            endpoint = try HTTPClient.Endpoint(url: settings.endpoint, allowHTTPS: true)
        } catch {
            throw ProviderSetupError("apnsUrl: \(error.message)")
        }
        guard endpoint.isSecure else {
            throw ProviderSetupError("apnsUrl: APNs is HTTPS only ('\(settings.endpoint)')")
        }
    }

    /// Sends `payload` to the device `token` of the app `topic`.
    ///
    /// - Throws: ``ProviderFailure`` when APNs gave no answer (unreachable, TLS, protocol, signing).
    func send(payload: [UInt8], to deviceToken: String, topic: String, kind: APNsPushKind) throws(ProviderFailure)
        -> ProviderAnswer
    {
        var (status, reason, apnsID) = try exchange(payload, deviceToken, topic, kind)
        if status == 403 && reason == "ExpiredProviderToken" {
            // APNs judged the token old (a clock that jumped): sign a new one, once.
            token = nil
            (status, reason, apnsID) = try exchange(payload, deviceToken, topic, kind)
        }
        return ProviderAnswer(
            status: status, reason: reason, providerId: apnsID,
            explanation: ProviderExplanation.apns(
                status: status, reason: reason, environment: settings.environment, topic: topic))
    }

    /// One request: APNs' status, `reason` and `apns-id`.
    private func exchange(_ payload: [UInt8], _ deviceToken: String, _ topic: String, _ kind: APNsPushKind)
        throws(ProviderFailure) -> (status: Int, reason: String?, apnsID: String?)
    {
        let headers: [HTTP2Connection.HTTPHeaderField] = [
            .init("authorization", "bearer \(try bearer())"),
            .init("apns-topic", topic),
            .init("apns-push-type", kind.rawValue),
            .init("apns-priority", kind == .background ? "5" : "10"),
            .init("content-type", "application/json"),
        ]
        let path = "\(endpoint.basePath)/3/device/\(deviceToken)"
        let response: HTTP2Connection.Response
        do {
            response = try withConnection { connection throws(HTTP2Error) in
                try connection.send("POST", path, headers: headers, body: payload)
            }
        } catch {
            throw ProviderFailure("APNs at \(endpoint.authority): \(error.message)")
        }
        let reason = (try? JSONDecoder().decode(Refusal.self, from: Data(response.body)))?.reason
        return (response.status, reason, response.header("apns-id"))
    }

    private struct Refusal: Decodable {
        var reason: String
    }

    private struct Claims: Encodable {
        var iss: String
        var iat: Int
    }

    /// The provider token, signed anew when the last one is 30 minutes old.
    private func bearer() throws(ProviderFailure) -> String {
        if let token, token.issuedAt.duration(to: .now) < Self.tokenLifetime { return token.text }
        let issuedAt = Int(Date().timeIntervalSince1970)
        do {
            let text = try JSONWebToken.sign(
                Claims(iss: settings.teamID, iat: issuedAt), keyID: settings.keyID, key: key)
            token = (text, .now)
            return text
        } catch {
            throw ProviderFailure("signing the APNs token: \(error)")
        }
    }

    /// How long an unused connection is kept for the next send. Longer, and a connection that a NAT, a
    /// sleeping laptop or a network change dropped without a word would cost the next send its timeout.
    static let idleLifetime = Duration.seconds(60)

    /// How long the server has to acknowledge the PING that checks an open connection before it is reused.
    static let livenessSeconds = 5

    /// Runs `send` on the open connection, or a new one. An open connection is reused only once a PING
    /// shows it still alive: APNs, a proxy or a NAT may have closed it while it was idle without a GOAWAY,
    /// and a request written into it would be lost without telling whether it arrived. A send the server
    /// certainly did not act on (the connection had closed before the request's last frame was written, or
    /// a GOAWAY refused its stream) is tried once more on a new connection; any other failure is not, so
    /// nothing is sent twice.
    private func withConnection(
        _ send: (HTTP2Connection) throws(HTTP2Error) -> HTTP2Connection.Response
    ) throws(HTTP2Error) -> HTTP2Connection.Response {
        if let open = connection,
            open.lastUsed.duration(to: .now) > Self.idleLifetime || !open.isAlive(within: Self.livenessSeconds)
        {
            open.close()
            connection = nil
        }
        if let open = connection {
            do {
                return try send(open)
            } catch  where !error.processed {
                connection = nil
            } catch {
                connection = nil
                throw error
            }
        }
        let fresh = try HTTP2Connection(
            host: endpoint.host, port: endpoint.port, context: tls, timeoutSeconds: timeoutSeconds)
        connection = fresh
        do {
            return try send(fresh)
        } catch {
            connection = nil
            throw error
        }
    }
}

/// `apns-push-type` (and with it `apns-priority`): a notification the user sees, or a silent one that
/// wakes the app (`content-available` without alert, sound or badge).
enum APNsPushKind: String {
    case alert
    case background

    /// What the payload is: background when `aps` has `content-available: 1` and nothing to show.
    init(payload: JSONValue) {
        guard case .object(let root) = payload, case .object(let aps)? = root["aps"],
            aps["content-available"] == .number(1), aps["alert"] == nil, aps["sound"] == nil, aps["badge"] == nil
        else {
            self = .alert
            return
        }
        self = .background
    }
}

/// A provider setting that cannot be used (a missing file, a key of the wrong kind); reported at start.
package struct ProviderSetupError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// A send that got no answer from the provider.
struct ProviderFailure: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
