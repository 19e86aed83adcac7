import Testing

@testable import CampaignMock

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
}
