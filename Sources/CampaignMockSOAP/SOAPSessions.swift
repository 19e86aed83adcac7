import CampaignMockHTTP
import CampaignMockSupport
import CampaignMockSystem
import Synchronization

/// Logged-on SOAP sessions. A session is kept in nothing but its tokens: the session token carries its
/// serial number, its operator and when it expires, signed with a key of this process (so a restart logs
/// everyone off), and the security token is the session token's own signature. A logon therefore costs
/// no memory however long its session lives (24 h by default) — a back end that logs on for every run,
/// never logging off, would otherwise have the server hold every session of the last day. Only a
/// `Logoff` is remembered, in one bit of a bitmap of serials (``LoggedOffSerials``), until its session
/// would have expired.
package final class SOAPSessions: Sendable {
    /// What a valid session token says.
    struct Session: Equatable {
        let serial: UInt64
        let operatorIndex: Int
        let expiresAt: UInt64
    }

    /// Sessions logged off before they expired.
    private let loggedOff = Mutex(LoggedOffSerials())
    private let serials = Atomic<UInt64>(0)
    private let authenticator = MessageAuthenticator()
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

    /// How many logged-off sessions are remembered (all the server keeps about sessions).
    var remembered: Int { loggedOff.withLock { $0.count } }
    /// The bytes their bitmap takes.
    var rememberedBytes: Int { loggedOff.withLock { $0.bytes } }

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
        let index = operators.firstIndex { $0.login == login } ?? 0
        let serial = serials.wrappingAdd(1, ordering: .relaxed).newValue
        let expiry = Clock.monotonicNanoseconds() + UInt64(lifetimeMilliseconds) * 1_000_000
        let claims = "\(String(serial, radix: 16))-\(index)-\(String(expiry, radix: 16))"
        let token = "___" + claims + "-" + hex(authenticator.tag(claims.utf8).prefix(16))
        return (token, securityToken(of: token))
    }

    /// The security token that goes with a session token: its signature, so it need not be kept.
    private func securityToken(of token: String) -> String {
        "@" + Base64.encode(authenticator.tag(("security " + token).utf8))
    }

    /// What a session token made by ``open(login:)`` says; nil for any other text.
    func session(_ token: String) -> Session? {
        guard token.hasPrefix("___") else { return nil }
        let parts = token.dropFirst(3).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, let serial = UInt64(parts[0], radix: 16), let index = Int(parts[1]),
            operators.indices.contains(index), let expiresAt = UInt64(parts[2], radix: 16)
        else { return nil }
        let claims = token.dropFirst(3).dropLast(parts[3].count + 1)
        guard constantTimeEqual(Array(parts[3].utf8), Array(hex(authenticator.tag(claims.utf8).prefix(16)).utf8))
        else { return nil }
        return Session(serial: serial, operatorIndex: index, expiresAt: expiresAt)
    }

    private func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String($0, radix: 16).leftPadded(2) }.joined()
    }

    /// The operator a session token belongs to: the first operator for a bearer token or an unknown one.
    func login(of token: String) -> String {
        if !token.hasPrefix("___"), let slash = token.firstIndex(of: "/") { return String(token[..<slash]) }
        return operators[session(token)?.operatorIndex ?? 0].login
    }

    /// Ends a live session: remembered until it would have expired.
    func logoff(_ token: String) {
        let now = Clock.monotonicNanoseconds()
        guard let session = session(token), session.expiresAt > now else { return }
        loggedOff.withLock { $0.insert(session.serial, expiresAt: session.expiresAt, now: now) }
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
        guard let session = session(token), !loggedOff.withLock({ $0.contains(session.serial) }) else {
            throw .badSession("unknown session token")
        }
        guard session.expiresAt > Clock.monotonicNanoseconds() else { throw .badSession("the session expired") }
        guard let securityToken,
            constantTimeEqual(Array(securityToken.utf8), Array(self.securityToken(of: token).utf8))
        else { throw .badSession("missing or wrong X-Security-Token") }
    }
}

/// The serials of logged-off sessions, one bit each in blocks of 4,096 consecutive serials (512 bytes), in
/// whatever order they come: a peer that logs on and off without end, or logs off every other session, costs
/// at most a bit per session it opened, never a dictionary entry per logoff. A block is forgotten once the
/// last of its logged-off sessions has expired (they can no longer be used anyway), checked whenever a new
/// block is made.
struct LoggedOffSerials {
    private static let blockSerials: UInt64 = 4096

    private struct Block {
        /// When the last of its logged-off sessions expires.
        var expiresAt: UInt64 = 0
        var words = [UInt64](repeating: 0, count: Int(LoggedOffSerials.blockSerials / 64))
    }

    /// Block number (serial / 4096) → its bits.
    private var blocks: [UInt64: Block] = [:]
    private(set) var count = 0

    /// What the bits take (the dictionary's own entries besides).
    var bytes: Int { blocks.count * Int(Self.blockSerials / 8) }

    func contains(_ serial: UInt64) -> Bool {
        guard let block = blocks[serial / Self.blockSerials] else { return false }
        let bit = serial % Self.blockSerials
        return block.words[Int(bit / 64)] & (1 << (bit % 64)) != 0
    }

    mutating func insert(_ serial: UInt64, expiresAt: UInt64, now: UInt64) {
        let number = serial / Self.blockSerials
        if blocks[number] == nil {
            forgetExpired(now: now)
            blocks[number] = Block()
        }
        let bit = serial % Self.blockSerials
        let mask: UInt64 = 1 << (bit % 64)
        blocks[number]!.expiresAt = max(blocks[number]!.expiresAt, expiresAt)
        if blocks[number]!.words[Int(bit / 64)] & mask == 0 {
            blocks[number]!.words[Int(bit / 64)] |= mask
            count += 1
        }
    }

    private mutating func forgetExpired(now: UInt64) {
        for (number, block) in blocks where block.expiresAt <= now {
            count -= block.words.reduce(0) { $0 + $1.nonzeroBitCount }
            blocks[number] = nil
        }
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
