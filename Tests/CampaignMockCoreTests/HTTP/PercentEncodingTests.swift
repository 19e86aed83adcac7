import Testing

@testable import CampaignMockCore

@Suite struct PercentEncodingTests {
    @Test func decodesEscapesAndPlus() {
        #expect(PercentEncoding.decode("user%40email.com") == "user@email.com")
        #expect(PercentEncoding.decode("a+b", plusAsSpace: true) == "a b")
        #expect(PercentEncoding.decode("a+b") == "a+b")
        #expect(PercentEncoding.decode("%E6%97%A5") == "日")
    }

    @Test func rejectsBrokenEscapesAndInvalidUTF8() {
        #expect(PercentEncoding.decode("%4") == nil)
        #expect(PercentEncoding.decode("%zz") == nil)
        #expect(PercentEncoding.decode("%FF") == nil)
    }

    @Test func splitsQueryItemsInOrder() throws {
        let items = try #require(PercentEncoding.queryItems("b=2&a=%31&flag&c="))
        #expect(items.map(\.name) == ["b", "a", "flag", "c"])
        #expect(items.map(\.value) == ["2", "1", "", ""])
    }
}
