import Testing

@testable import CampaignMockHTTP

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

    @Test func queryItemsSkipEmptyPartsAndRefuseBrokenEscapes() throws {
        let items = try #require(PercentEncoding.queryItems("&&a=1&&b=x+y&"))
        #expect(items.map(\.name) == ["a", "b"])
        #expect(items.map(\.value) == ["1", "x y"])
        #expect(PercentEncoding.queryItems("a=%4") == nil)
        #expect(PercentEncoding.queryItems("%zz=1") == nil)
        #expect(PercentEncoding.queryItems(nil)?.isEmpty == true)
        #expect(PercentEncoding.queryItems("")?.isEmpty == true)
    }

    /// A form's bytes: raw UTF-8 is taken as it is, raw bytes that are not UTF-8 are refused, an escape
    /// cut short at the end is broken.
    @Test func decodesRawBytes() {
        func decode(_ bytes: [UInt8]) -> String? {
            bytes.withUnsafeBufferPointer { PercentEncoding.decode(bytes: $0, plusAsSpace: true) }
        }
        #expect(decode(Array("caf\u{e9}+%C3%A9".utf8)) == "caf\u{e9} \u{e9}")
        #expect(decode([0x61, 0xFF]) == nil)
        #expect(decode(Array("100%".utf8)) == nil)
        #expect(decode(Array("%2".utf8)) == nil)
        #expect(decode([]) == "")
    }
}
