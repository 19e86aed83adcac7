import CampaignMockHTTP
import Foundation
import Testing

@testable import CampaignMockModel
@testable import CampaignMockStorage
@testable import CampaignMockSupport

/// The hand-written JSON of a registration must be exactly what JSONEncoder writes, or stored history
/// rows would stop comparing equal.
@Suite("registration JSON")
struct RegistrationJSONTests {
    private static let texts = [
        "", "iPhone", "iOS 17.0", "en-US", "Jürgen's \"phone\"", "back\\slash", "a/b", "line\nbreak\r\ttab",
        "\u{08}\u{0C}\u{01}\u{1F}\u{7F}", "日本語 😀 é", "<param name=\"x\" />", "%41&b=c",
    ]

    @Test(arguments: texts)
    func fieldsMatchJSONEncoder(_ text: String) throws {
        let full = DeviceFields(
            deviceImei: text, deviceName: text, deviceModel: "m", deviceBrand: text, deviceManufacturer: "x",
            osName: text, osVersion: "1", osLanguage: text)
        #expect(RegistrationJSON.fields(full) == (try encoderText(full)))
        let sparse = DeviceFields(deviceName: text, osVersion: text)
        #expect(RegistrationJSON.fields(sparse) == (try encoderText(sparse)))
        #expect(RegistrationJSON.fields(DeviceFields()) == (try encoderText(DeviceFields())))
    }

    @Test(arguments: texts)
    func paramsMatchJSONEncoder(_ text: String) throws {
        let params = [
            AdditionalParam(name: text, value: text), AdditionalParam(name: "points", value: "42"),
            AdditionalParam(name: "ok", value: "true"), AdditionalParam(name: "pi", value: "3.14"),
        ]
        #expect(RegistrationJSON.params(params) == (try encoderText(params)))
        #expect(RegistrationJSON.params([]) == (try encoderText([AdditionalParam]())))
    }
}

@Suite("journal header JSON")
struct JournalHeaderJSONTests {
    @Test func headersRoundTripWhateverTheyHold() {
        let pairs: [(String, String)] = [
            ("Host", "127.0.0.1:8080"), ("Accept", "*/*"), ("X-Odd", "quote \" backslash \\ tab \t \u{01} é 😀"),
            ("Empty", ""),
        ]
        #expect(JSONArrays.decodePairs(JSONArrays.encodePairs(pairs)) == pairs.map { [$0.0, $0.1] })
        #expect(JSONArrays.encodePairs([]) == "[]")
    }

    /// A request's header fields are written as the same text, in their order, repeats kept, and as
    /// JSONEncoder writes the list.
    @Test func aRequestsHeadersAreWrittenAsTheirPairs() throws {
        var headers = HTTPHeaders()
        let pairs = [
            ("Host", "h"), ("X-Odd", "quote \" backslash \\ newline \n \u{1F} é"), ("Accept", "a"), ("Accept", "b"),
            ("Empty", ""),
        ]
        for (name, value) in pairs { headers.append(HTTPHeaderName(rawValue: name), value) }
        let text = JSONArrays.encode(headers)
        #expect(text == JSONArrays.encodePairs(pairs))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        #expect(text == String(decoding: try encoder.encode(pairs.map { [$0.0, $0.1] }), as: UTF8.self))
        #expect(JSONArrays.encode(HTTPHeaders()) == "[]")
    }

    /// Texts written another way (spaces, escaped slashes, \u escapes of any character) still read as
    /// JSONDecoder reads them.
    @Test(arguments: [
        #"[]"#, #"[["a","b"]]"#, #"[ ["a" , "b"] ]"#, #"[["a\/b","\u00e9\ud83d\ude00"]]"#, #"[["x"],[]]"#,
        #"[["\u0001\n"]]"#, #"[["unterminated]]"#, #"[["a","b"]"#, #"[["a","b"]]x"#, "",
    ])
    func headersReadAsJSONDecoderReadsThem(_ text: String) {
        let expected = (try? JSONDecoder().decode([[String]].self, from: Data(text.utf8))) ?? []
        #expect(JSONArrays.decodePairs(text) == expected)
    }
}
