import Testing

@testable import CampaignMockMobile
@testable import CampaignMockModel

@Suite struct AdditionalParamsReaderTests {
    @Test func readsTheIOSShapeSortedWithSpaceBeforeSlash() throws {
        let xml =
            #"<additionalParams><param name="email" value="email@email.com" /><param name="userPoints" value="3233" /></additionalParams>"#
        let params = try AdditionalParamsReader.parse(xml)
        #expect(params.map(\.name) == ["email", "userPoints"])
        #expect(params.map(\.value) == ["email@email.com", "3233"])
        #expect(params.map(\.kind) == [.string, .integer])
    }

    @Test func readsTheAndroidShape() throws {
        let params = try AdditionalParamsReader.parse(
            #"<additionalParameters><param name="key" value="value"/></additionalParameters>"#)
        #expect(params == [AdditionalParam(name: "key", value: "value")])
    }

    @Test(arguments: [
        "<additionalParams></additionalParams>", "<additionalParameters></additionalParameters>",
        "<additionalParams/>", "", "  ", "<?xml version=\"1.0\" encoding=\"UTF-8\"?><additionalParams/>",
    ])
    func readsEmptyDocumentsAsNoParams(_ xml: String) throws {
        #expect(try AdditionalParamsReader.parse(xml).isEmpty)
    }

    /// docs/protocol.md §3.4 escaping vectors, decoded from the wire form the SDK tests assert.
    @Test(arguments: [
        // iOS: '&#x27;h&gt;e&amp;l&quot;l&lt;o&#x27;'
        "%26%23x27%3Bh%26gt%3Be%26amp%3Bl%26quot%3Bl%26lt%3Bo%26%23x27%3B",
        // Android: '&#39;h&gt;e&amp;l&quot;l&lt;o&#39;'
        "%26%2339%3Bh%26gt%3Be%26amp%3Bl%26quot%3Bl%26lt%3Bo%26%2339%3B",
    ])
    func decodesTheEscapingVectorsWithoutDoubleUnescaping(_ wireValue: String) throws {
        let wire =
            "additionalParams=%3CadditionalParams%3E%3Cparam%20name%3D%22k%22%20value%3D%22\(wireValue)%22%20%2F%3E%3C%2FadditionalParams%3E"
        let form = try FormBody(parsing: Array(wire.utf8))
        let params = try AdditionalParamsReader.parse(form["additionalParams"] ?? "")
        #expect(params.first?.value == "'h>e&l\"l<o'")
    }

    /// Both SDKs send an empty key as `name=""`; it is ignored, and the registration goes through.
    @Test func ignoresAParamWithAnEmptyName() throws {
        let params = try AdditionalParamsReader.parse(
            #"<additionalParameters><param name="" value="x"/><param name="plan" value="gold"/>"#
                + #"<param name="" value="y"/></additionalParameters>"#)
        #expect(params == [AdditionalParam(name: "plan", value: "gold")])
    }

    /// A document written with Windows line ends: CR LF between the elements is white space, although
    /// Swift reads it as one Character that is neither a CR nor an LF.
    @Test(arguments: ["\r\n", "\r", " \r\n\t"])
    func readsLineEndsOfEveryKindBetweenParams(_ lineEnd: String) throws {
        let xml =
            "<additionalParams>\(lineEnd)<param name=\"a\" value=\"b\"/>\(lineEnd)<param name=\"c\" value=\"d\"/>"
            + "\(lineEnd)</additionalParams>\(lineEnd)"
        #expect(
            try AdditionalParamsReader.parse(xml) == [
                AdditionalParam(name: "a", value: "b"), AdditionalParam(name: "c", value: "d"),
            ])
    }

    @Test func ignoresComments() throws {
        let params = try AdditionalParamsReader.parse(
            #"<additionalParams><!-- a note --><param name="a" value="b" /></additionalParams>"#)
        #expect(params == [AdditionalParam(name: "a", value: "b")])
    }

    @Test func keepsEntityTextThatIsItselfEscaped() throws {
        let params = try AdditionalParamsReader.parse(
            #"<additionalParams><param name="a" value="&amp;lt;" /></additionalParams>"#)
        #expect(params.first?.value == "&lt;")
    }

    /// docs/protocol.md §9 items 5 and 6: the Android type vectors and the instrumented test.
    @Test(arguments: [
        ("company", "xxx.corp", AdditionalParam.Kind.string), ("isRegistered", "true", .boolean),
        ("serial", "12345", .integer), ("float", "3.14", .decimal), ("double", "6.75", .decimal),
        ("long", "500", .integer), ("byte", "100", .integer), ("char", "97", .integer), ("short", "200", .integer),
        ("zipcode", "94403", .integer), ("subscribed", "false", .boolean), ("age", "35.9", .decimal),
        ("negative", "-12", .integer), ("exponent", "1e5", .decimal), ("huge", "99999999999999999999", .string),
        ("version", "1.2.3", .string), ("empty", "", .string), ("True", "True", .string),
    ])
    func typesValuesAsSent(_ name: String, _ value: String, _ kind: AdditionalParam.Kind) throws {
        let params = try AdditionalParamsReader.parse(
            #"<additionalParameters><param name="\#(name)" value="\#(value)"/></additionalParameters>"#)
        #expect(params == [AdditionalParam(name: name, value: value, kind: kind)])
    }

    @Test(arguments: [
        (#"<!DOCTYPE x [<!ENTITY a "b">]><additionalParams/>"#, "DTDs"),
        (#"<additionalParams><param name="a" value="&lol;" /></additionalParams>"#, "predefined"),
        (#"<additionalParams><param name="a" value="&#0;" /></additionalParams>"#, "invalid character reference"),
        (
            #"<additionalParams><param name="a" value="x" /><param name="a" value="y" /></additionalParams>"#,
            "more than once"
        ),
        (#"<additionalParams><item name="a" value="x" /></additionalParams>"#, "only param"),
        (#"<params><param name="a" value="x" /></params>"#, "root element"),
        (#"<additionalParams><param name="a" /></additionalParams>"#, "no value"),
        (#"<additionalParams><param value="x" /></additionalParams>"#, "no name attribute"),
        (#"<additionalParams><param name="a" value="x" other="y" /></additionalParams>"#, "unknown attribute"),
        (#"<additionalParams>text</additionalParams>"#, "text content"),
        (#"<additionalParams><param name="a" value="x" />"#, "unterminated element <additionalParams>"),
        (
            #"<additionalParams><param name="a" value="x" /></additionalParameters>"#,
            "does not close <additionalParams>"
        ),
        (#"<additionalParams/><additionalParams/>"#, "after the root"),
        (#"<additionalParams><![CDATA[x]]></additionalParams>"#, "text content"),
        (#"<additionalParams><?pi x?></additionalParams>"#, "processing instructions"),
        (#"<additionalParams><p:param xmlns:p="urn:x" name="a" value="b"/></additionalParams>"#, "only param"),
        (#"<additionalParams><param name=a value="x" /></additionalParams>"#, "quoted"),
        (#"<additionalParams><param name="a" value="x<y" /></additionalParams>"#, "'<' inside"),
        (#"<additionalParams><param name="a"value="x" /></additionalParams>"#, "separated by spaces"),
        (#"<additionalParams a="1"/>"#, "no attributes"),
        ("not xml at all", "root element"),
    ])
    func refusesMalformedOrDangerousXML(_ xml: String, _ fragment: String) {
        do {
            _ = try AdditionalParamsReader.parse(xml)
            Issue.record("accepted \(xml)")
        } catch {
            guard case .malformed(let reason) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(reason.hasPrefix("additionalParams: "))
            #expect(reason.contains(fragment), "\(reason)")
        }
    }

    @Test func refusesAnEntityBombWithoutExpandingIt() {
        let bomb =
            #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>"#
            + #"<additionalParams><param name="a" value="&lol2;" /></additionalParams>"#
        #expect(throws: RegistrationError.self) { try AdditionalParamsReader.parse(bomb) }
    }
}
