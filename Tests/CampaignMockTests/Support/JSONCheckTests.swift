import CampaignMockHTTP
import Testing

@testable import CampaignMockSupport

/// A text handed out a few bytes per read, so every window boundary of the reader is crossed.
private struct Trickle: ByteSource {
    let bytes: [UInt8]
    let piece: Int
    var count: Int { bytes.count }
    func read(at offset: Int, length: Int) throws -> [UInt8] {
        Array(bytes[min(offset, bytes.count)..<min(offset + min(length, piece), bytes.count)])
    }
}

@Suite struct JSONCheckTests {
    @Test(arguments: [
        #"{}"#, #"[]"#, #"  {"a": [1, -2.5e+3, 0, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"]} "#,
        #""text""#, #"0"#, #"{"a": {"a": {"a": 1}}}"#, #"[{"a": 1}, {"a": 2}]"#,
    ])
    func acceptsJSON(_ text: String) {
        #expect(JSONCheck.problem(in: Array(text.utf8)) == nil)
    }

    @Test(arguments: [
        ("", "line 1, column 1: expected a value, found the end of the text"),
        ("{\"a\": 1,}", "line 1, column 9: a comma before '}' (JSON allows none)"),
        ("[1, 2,\n]", "line 2, column 1: a comma before ']' (JSON allows none)"),
        ("{\"a\": 1 // note\n}", "line 1, column 9: expected ',' or '}', found '/' (comments are not JSON)"),
        ("{'a': 1}", "line 1, column 2: expected a key in double quotes, found '''"),
        ("{\"é\": 01}", "line 1, column 8: a number with a leading zero"),
        ("{\"a\": tru}", "line 1, column 10: expected 'true', found '}'"),
        ("{\"a\": \"x\ny\"}", "line 1, column 9: a control character in a string (write it as \\u00XX)"),
        ("{\"a\": \"\\q\"}", "line 1, column 8: an unknown escape '\\q' in a string"),
        ("{\"a\": 1} x", "line 1, column 10: unexpected text after the JSON value"),
        ("{\"a\": 1.}", "line 1, column 9: expected a digit after '.', found '}'"),
        ("[\"open", "line 1, column 7: a string without its closing quote"),
    ])
    func namesTheLineAndColumnOfASyntaxError(_ text: String, _ message: String) {
        #expect(JSONCheck.problem(in: Array(text.utf8))?.description == message)
    }

    @Test func findsAKeyGivenTwiceWithItsPath() {
        #expect(
            JSONCheck.problem(in: Array(#"{"apps": [{"name": "a"}, {"name": "b", "name": "c"}]}"#.utf8))
                == .duplicateKey(key: "name", path: "apps.1"))
        // The same key in two objects is no repeat; escapes are compared by what they mean.
        #expect(JSONCheck.problem(in: Array(#"[{"a": 1}, {"a": 2}]"#.utf8)) == nil)
        #expect(JSONCheck.problem(in: Array(#"{"a": 1, "\u0061": 2}"#.utf8)) == .duplicateKey(key: "a", path: ""))
    }

    @Test func refusesNestingBeyondItsDepthInsteadOfOverflowingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(JSONCheck.problem(in: Array(deep.utf8))?.description.contains("nested deeper than 64") == true)
    }

    @Test(arguments: [1, 3, 7])
    func aTextReadAPieceAtATimeGetsTheSameVerdictsAtTheSamePlaces(_ piece: Int) {
        let texts = [
            #"{"a": [1, -2.5e+3, true, null, "x\"\u00e9\ud83d\ude00"]}"#, "{\"a\": 1,}", "[1, 2,\n]",
            "{\"é\": 01}", "{\"a\": \"\\q\"}", "{\"a\": 1} x", "[\"open", "{\"a\": \"\\u12\"}",
            #"{"a": 1, "\u0061": 2}"#,
        ]
        for text in texts {
            let bytes = Array(text.utf8)
            let streamed: JSONCheck.Problem?
            switch JSONCheck.members(of: Trickle(bytes: bytes, piece: piece)) {
            case .success: streamed = nil
            case .failure(let problem): streamed = problem
            }
            #expect(streamed == JSONCheck.problem(in: bytes), "\(text)")
        }
    }

    @Test func findsWhereEachTopLevelMemberIs() throws {
        let text = #"{ "b" : [1, {"c": "]"}] , "a":"x\"y", "n": {"a": 1} }"#
        let members = try JSONCheck.members(of: Trickle(bytes: Array(text.utf8), piece: 2)).get()
        let bytes = Array(text.utf8)
        #expect(members.map(\.name) == ["b", "a", "n"])
        #expect(
            members.map { String(decoding: bytes[$0.range], as: UTF8.self) } == [
                #"[1, {"c": "]"}]"#, #""x\"y""#, #"{"a": 1}"#,
            ])
        #expect(try JSONCheck.members(of: Trickle(bytes: Array("[1]".utf8), piece: 2)).get().isEmpty)
    }

    @Test func splitsAnArrayIntoItsElementsWhateverThePieces() throws {
        let text = #"[ {"a": "[,]\"}", "b": [1, 2]} ,"x,\\",  3.5e2 , [ [] ], {} ,null]"#
        for piece in [1, 2, 5, 1000] {
            var elements: [String] = []
            try JSONArrayElements(source: Trickle(bytes: Array(text.utf8), piece: piece), range: 0..<text.utf8.count)
                .readEach { index, bytes in
                    #expect(index == elements.count)
                    elements.append(String(decoding: bytes, as: UTF8.self))
                }
            #expect(elements == [#"{"a":"[,]\"}","b":[1,2]}"#, #""x,\\""#, "3.5e2", "[[]]", "{}", "null"])
        }
        var none = 0
        try JSONArrayElements(source: Array(" [ ] ".utf8), range: 1..<4).readEach { _, _ in none += 1 }
        #expect(none == 0)
    }
}
