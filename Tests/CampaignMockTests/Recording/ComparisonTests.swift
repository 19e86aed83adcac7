import CampaignMockHTTP
import Testing

@testable import CampaignMockRecording

@Suite("replay comparison and redaction rules")
struct ComparisonTests {
    private func recorded(_ body: String, type: String = "text/xml; charset=utf-8", headers: [String] = [])
        -> Exchange.Message
    {
        var message = Exchange.Message(
            status: 200, headers: [.contentType: type] as HTTPHeaders, body: Array(body.utf8))
        message.headers += headers
        return message
    }

    private func differences(
        _ recorded: Exchange.Message, _ body: String,
        headers: HTTPHeaders = HTTPHeaders(dictionaryLiteral: (.contentType, "text/xml; charset=utf-8")),
        ignoring: Set<String> = [], bindings: Bindings = Bindings()
    ) -> (differences: [String], bindings: Bindings) {
        var comparison = ExchangeComparison(bindings: bindings, ignoredHeaders: ignoring)
        comparison.compare(recorded, status: 200, headers: headers, body: Array(body.utf8))
        return (comparison.differences, comparison.bindings)
    }

    @Test func xmlIsComparedAsATreeWithTimesAndTokensByShape() {
        let message = recorded(
            "<a xmlns='urn:x' b='1' c='2'><t>___0F4E6B3C-1C1E-4C39-9C0B-8E8E2E7E1A11</t><d when='2026-11-22 18:30:05.474Z'/></a>"
        )
        let same = differences(
            message,
            "<?xml version='1.0'?>\n<p:a xmlns:p='urn:x' c='2' b='1'>\n  <p:t>___A1B2C3D4-0000-4000-8000-000000000000</p:t>"
                + "<p:d when='2027-01-01 00:00:00.000Z'/></p:a>")
        #expect(same.differences.isEmpty)
        // The token is carried into later requests.
        #expect(
            same.bindings.values["___0F4E6B3C-1C1E-4C39-9C0B-8E8E2E7E1A11"] == "___A1B2C3D4-0000-4000-8000-000000000000"
        )

        let changed = differences(message, "<a xmlns='urn:x' b='1' c='3'><t>x</t></a>")
        #expect(
            changed.differences == [
                #"body /a/@c: expected "2", got "3""#,
                "body /a: expected 2 child element(s), got 1",
                #"body /a/t: expected text "___0F4E6B3C-1C1E-4C39-9C0B-8E8E2E7E1A11", got "x""#,
            ])
    }

    @Test func placeholdersMatchAnyValueOnceAndThenTheSameOne() {
        let message = recorded("Unknown integration key (mobileAppUuid): redacted-integrationKey-1", type: "text/plain")
        let plain = HTTPHeaders(dictionaryLiteral: (.contentType, "text/plain"))
        let first = differences(message, "Unknown integration key (mobileAppUuid): K1", headers: plain)
        #expect(first.differences.isEmpty)
        #expect(first.bindings.values["redacted-integrationKey-1"] == "K1")
        let second = differences(
            message, "Unknown integration key (mobileAppUuid): K2", headers: plain, bindings: first.bindings)
        #expect(
            second.differences == [
                #"body line 1: expected "Unknown integration key (mobileAppUuid): redacted-integrationKey-1", got "Unknown integration key (mobileAppUuid): K2""#
            ])
    }

    @Test func recordedHeadersAreComparedUnlessIgnored() {
        let message = recorded("OK", type: "text/plain", headers: ["X-Build: 42"])
        let headers = HTTPHeaders(
            dictionaryLiteral: (.contentType, "text/plain"), (HTTPHeaderName(rawValue: "x-build"), "43"))
        #expect(
            differences(message, "OK", headers: headers).differences == [#"header X-Build: expected "42", got "43""#])
        #expect(differences(message, "OK", headers: headers, ignoring: ["x-build"]).differences.isEmpty)
        #expect(
            differences(message, "OK", headers: HTTPHeaders(dictionaryLiteral: (.contentType, "text/plain")))
                .differences == [
                    #"header X-Build: expected "42", missing"#
                ])
    }

    @Test func formsAreComparedFieldByField() {
        let message = recorded("a=1&b=x%20y", type: "application/x-www-form-urlencoded")
        let form = HTTPHeaders(dictionaryLiteral: (.contentType, "application/x-www-form-urlencoded"))
        #expect(differences(message, "a=1&b=x+y", headers: form).differences.isEmpty)
        #expect(
            differences(message, "a=2&b=x+y", headers: form).differences == [#"body field a: expected "1", got "2""#])
    }

    @Test func secretsAreReplacedOnlyWhereTheyStandWhole() {
        #expect(
            WholeValue.replace("admin", with: "P", in: "<l>admin</l> administrator admin2 'admin'")
                == "<l>P</l> administrator admin2 'P'")
        #expect(
            WholeValue.replace("jane%40x.com", with: "P", in: "userKey=jane%40x.com&v=%22jane%40x.com%22")
                == "userKey=P&v=%22P%22")
        #expect(Redactor.spellings(of: "a b&c") == ["a b&c", "a%20b%26c", "a+b%26c", "a b&amp;c"])
    }
}
