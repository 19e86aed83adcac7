import CampaignMockHTTP
import CampaignMockSupport
import CampaignMockSystem
import Synchronization

/// Logged-on SOAP sessions (in memory; a restart logs everyone off).
package final class SOAPSessions: Sendable {
    struct Session: Sendable {
        let login: String
        let securityToken: String
        let expiresAt: UInt64
    }

    private let sessions = Mutex<[String: Session]>([:])
    /// The operators that may log on; the first is the one a bearer token's session belongs to.
    let operators: [SOAPOperator]
    /// Accepted bearer tokens (IMS technical accounts on Campaign v8).
    let bearerTokens: [String]
    /// Session lifetime.
    let lifetimeMilliseconds: Int

    package init(operators: [SOAPOperator], bearerTokens: [String] = [], lifetimeMilliseconds: Int) {
        precondition(!operators.isEmpty, "the SOAP router needs an operator")
        self.operators = operators
        self.bearerTokens = bearerTokens
        self.lifetimeMilliseconds = lifetimeMilliseconds
    }

    /// Opens a session for valid credentials; returns (session token, security token) or nil.
    func logon(login: String, password: String) -> (String, String)? {
        guard accepts(login: login, password: password) else { return nil }
        return open(login: login)
    }

    /// Whether an operator has this login and password; every operator is compared, in constant time.
    private func accepts(login: String, password: String) -> Bool {
        operators.reduce(false) { found, candidate in
            let loginMatches = constantTimeEqual(Array(login.utf8), Array(candidate.login.utf8))
            let passwordMatches = constantTimeEqual(Array(password.utf8), Array(candidate.password.utf8))
            return (loginMatches && passwordMatches) || found
        }
    }

    /// `xtk:session#BearerTokenLogon`: a session for an accepted bearer token, or nil.
    func logon(bearerToken: String) -> (String, String)? {
        guard acceptsBearer(bearerToken) else { return nil }
        return open(login: operators[0].login)
    }

    /// Whether `token` is one of the accepted bearer tokens (compared in constant time).
    func acceptsBearer(_ token: String) -> Bool {
        bearerTokens.reduce(false) { found, accepted in
            constantTimeEqual(Array(token.utf8), Array(accepted.utf8)) || found
        }
    }

    private func open(login: String) -> (String, String) {
        let token = "___" + RandomText.uuid()
        let security = "@" + RandomText.base64(bytes: 48)
        let expiry = Clock.monotonicNanoseconds() + UInt64(lifetimeMilliseconds) * 1_000_000
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value.expiresAt > Clock.monotonicNanoseconds() }
            sessions[token] = Session(login: login, securityToken: security, expiresAt: expiry)
        }
        return (token, security)
    }

    /// The operator a session token belongs to: the first operator for a bearer token or an unknown one.
    func login(of token: String) -> String {
        if !token.hasPrefix("___"), let slash = token.firstIndex(of: "/") { return String(token[..<slash]) }
        return sessions.withLock { $0[token]?.login } ?? operators[0].login
    }

    func logoff(_ token: String) {
        _ = sessions.withLock { $0.removeValue(forKey: token) }
    }

    /// Checks who calls: an accepted `Authorization: Bearer` token (Campaign v8 technical accounts, which
    /// never log on), else a session token (`token`, else `X-Session-Token`, else the `__sessiontoken`
    /// cookie) with `X-Security-Token`. Returns the session token ("" for a bearer token).
    ///
    /// - Throws: the `XSV-350008` fault.
    func authenticate(_ request: HTTPRequest, token given: String) throws(SOAPFault) -> String {
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
            guard acceptsBearer(authorization.dropFirst("bearer ".count).trimmingASCIISpaces()) else {
                throw .badSession("the bearer token is not accepted (--soap-bearer-token)")
            }
            return ""
        }
        var token = given.isEmpty ? request.headers[HTTPHeaderName(rawValue: "X-Session-Token")] ?? "" : given
        for part in (request.headers[.cookie] ?? "").split(separator: ";") where token.isEmpty {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingASCIISpaces() }
            if pair.count == 2 && pair[0] == "__sessiontoken" { token = pair[1] }
        }
        try authenticate(token: token, securityToken: request.headers[HTTPHeaderName(rawValue: "X-Security-Token")])
        return token
    }

    /// Checks a call's credentials: a live session token with its security token, or `login/password`
    /// (the form load-balanced setups use, docs/protocol.md §5.4).
    ///
    /// - Throws: the `XSV-350008` fault.
    func authenticate(token: String, securityToken: String?) throws(SOAPFault) {
        if !token.hasPrefix("___"), let slash = token.firstIndex(of: "/") {
            let login = String(token[..<slash])
            let password = String(token[token.index(after: slash)...])
            guard accepts(login: login, password: password) else {
                throw .badSession("Invalid login or password. Connection denied.")
            }
            return
        }
        guard !token.isEmpty else { throw .badSession("no session token (first parameter or Cookie __sessiontoken)") }
        guard let session = sessions.withLock({ $0[token] }) else { throw .badSession("unknown session token") }
        guard session.expiresAt > Clock.monotonicNanoseconds() else {
            logoff(token)
            throw .badSession("the session expired")
        }
        guard let securityToken,
            constantTimeEqual(Array(securityToken.utf8), Array(session.securityToken.utf8))
        else { throw .badSession("missing or wrong X-Security-Token") }
    }
}

/// An operator the SOAP router accepts (`--soap-login`/`--soap-password`, `--operator LOGIN:PASSWORD`).
package struct SOAPOperator: Sendable, Equatable {
    package var login: String
    package var password: String

    package init(login: String, password: String) {
        self.login = login
        self.password = password
    }
}
