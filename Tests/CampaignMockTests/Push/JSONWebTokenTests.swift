import Foundation
import Testing

@testable import CampaignMockSupport

/// The JWTs the senders sign: their shape here; their signatures are verified by independent code
/// (Python's `cryptography`) in Tests/Contract/test_push_sending.py.
@Suite struct JSONWebTokenTests {
    private struct Claims: Encodable {
        var iss = "TEAM123456"
        var iat = 1_700_000_000
    }

    private func part(_ text: Substring) throws -> [String: Any] {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func anES256TokenNamesItsKeyAndCarriesARawSignature() throws {
        let key = try SigningKey(pem: try PrivateKey().pem)
        #expect(key.algorithm == .es256)
        let token = try JSONWebToken.sign(Claims(), keyID: "ABC123DEFG", key: key)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"))
        let header = try part(parts[0])
        #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == "ABC123DEFG")
        let claims = try part(parts[1])
        #expect(claims["iss"] as? String == "TEAM123456" && claims["iat"] as? Int == 1_700_000_000)
        // r‖s, 32 bytes each: 86 base64url characters.
        #expect(parts[2].count == 86)
    }

    @Test func aTextThatIsNoKeyIsRefusedWithoutEchoingIt() {
        #expect(throws: SigningKeyError.self) { try SigningKey(pem: Array("secret-looking text".utf8)) }
        do {
            _ = try SigningKey(pem: Array("secret-looking text".utf8))
        } catch {
            #expect(!error.description.contains("secret-looking"))
        }
    }
}
