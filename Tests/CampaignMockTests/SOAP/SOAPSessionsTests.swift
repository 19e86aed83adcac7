import Foundation
import Testing

@testable import CampaignMockSOAP

/// What the server keeps about SOAP sessions: a back end that logs on for every run and never logs off
/// must not make it hold a day of sessions (the default lifetime), so a logon keeps nothing.
@Suite("SOAP sessions", .timeLimit(.minutes(3)))
struct SOAPSessionsTests {
    private static let operators = [
        SOAPOperator(login: "admin", password: "admin"), SOAPOperator(login: "mc", password: "mc"),
    ]

    private func sessions(lifetimeMilliseconds: Int = 86_400_000) -> SOAPSessions {
        SOAPSessions(operators: Self.operators, lifetimeMilliseconds: lifetimeMilliseconds)
    }

    @Test func logonsKeepNothingAndEachSessionStillWorks() throws {
        let sessions = sessions()
        var opened: [(token: String, security: String)] = []
        for index in 0..<10_000 {
            let login = index.isMultiple(of: 2) ? "admin" : "mc"
            let (token, security) = try #require(sessions.logon(login: login, password: login))
            opened.append((token, security))
        }
        #expect(sessions.remembered == 0)
        #expect(Set(opened.map(\.token)).count == opened.count)
        for (index, session) in opened.enumerated() where index.isMultiple(of: 97) {
            try sessions.authenticate(token: session.token, securityToken: session.security)
            #expect(sessions.login(of: session.token) == (index.isMultiple(of: 2) ? "admin" : "mc"))
        }
    }

    @Test func aLoggedOffSessionIsRefusedAndOnlyItIsRemembered() throws {
        let sessions = sessions()
        let (first, firstSecurity) = try #require(sessions.logon(login: "admin", password: "admin"))
        let (second, secondSecurity) = try #require(sessions.logon(login: "admin", password: "admin"))
        sessions.logoff(first)
        #expect(sessions.remembered == 1)
        #expect(throws: SOAPFault.badSession("unknown session token")) {
            try sessions.authenticate(token: first, securityToken: firstSecurity)
        }
        try sessions.authenticate(token: second, securityToken: secondSecurity)
    }

    /// The sweeps of expired logoffs (each time the remembered ones doubled) keep every live one.
    @Test func sweepsKeepTheLoggedOffSessionsThatAreStillLive() throws {
        let sessions = sessions()
        let opened = try (0..<300).map { _ in try #require(sessions.logon(login: "mc", password: "mc")) }
        for (token, _) in opened { sessions.logoff(token) }
        #expect(sessions.remembered == 300)
        for (token, security) in opened {
            #expect(throws: SOAPFault.badSession("unknown session token")) {
                try sessions.authenticate(token: token, securityToken: security)
            }
        }
    }

    /// A peer that logs off every other session (or in any order) costs a bit per session opened: 100,000
    /// logons and 50,000 logoffs take 25 blocks of 512 bytes, where a dictionary entry each took about 2.3 MB.
    @Test func loggingOffEveryOtherSessionKeepsABitEach() throws {
        let sessions = sessions()
        let opened = try (0..<100_000).map { _ in try #require(sessions.logon(login: "mc", password: "mc")) }
        for (token, _) in opened.enumerated().filter({ $0.offset.isMultiple(of: 2) }).map(\.element).reversed() {
            sessions.logoff(token)
        }
        #expect(sessions.remembered == 50_000)
        #expect(sessions.rememberedBytes <= (100_000 / 4096 + 1) * 512)
        for (index, (token, security)) in opened.enumerated() where index.isMultiple(of: 999) || index < 4 {
            if index.isMultiple(of: 2) {
                #expect(throws: SOAPFault.badSession("unknown session token")) {
                    try sessions.authenticate(token: token, securityToken: security)
                }
            } else {
                try sessions.authenticate(token: token, securityToken: security)
            }
        }
    }

    @Test func aTokenNotMadeByThisServerOrTheWrongSecurityTokenIsRefused() throws {
        let sessions = sessions()
        let (token, security) = try #require(sessions.logon(login: "mc", password: "mc"))
        let (other, otherSecurity) = try #require(sessions.logon(login: "mc", password: "mc"))
        let elsewhere = try #require(self.sessions().logon(login: "mc", password: "mc"))
        // The operator index changed from mc's (1) to admin's (0): the signature no longer matches.
        let promoted = token.replacingOccurrences(of: "-1-", with: "-0-")
        #expect(promoted != token)
        for forged in [promoted, elsewhere.0, "___" + String(token.dropFirst(4)), "___unknown"] {
            #expect(throws: SOAPFault.badSession("unknown session token")) {
                try sessions.authenticate(token: forged, securityToken: security)
            }
        }
        #expect(throws: SOAPFault.badSession("missing or wrong X-Security-Token")) {
            try sessions.authenticate(token: token, securityToken: otherSecurity)
        }
        try sessions.authenticate(token: other, securityToken: otherSecurity)
    }

    @Test func anExpiredSessionIsRefusedAndItsLogoffKeepsNothing() throws {
        let sessions = sessions(lifetimeMilliseconds: 0)
        let (token, security) = try #require(sessions.logon(login: "admin", password: "admin"))
        #expect(throws: SOAPFault.badSession("the session expired")) {
            try sessions.authenticate(token: token, securityToken: security)
        }
        sessions.logoff(token)
        #expect(sessions.remembered == 0)
    }
}
