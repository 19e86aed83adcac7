import Testing

@testable import CampaignMockMobile
@testable import CampaignMockModel

/// The direct reading of the canonical shape against the XML tree's reading: on every document, the same
/// params (names, values, kinds, order) or the same refusal with the same reason.
@Suite struct AdditionalParamsCanonicalTests {
    /// The documents of AdditionalParamsReaderTests, and the SDKs' shapes.
    static let vectors: [String] = [
        #"<additionalParams><param name="email" value="email@email.com" /><param name="userPoints" value="3233" /></additionalParams>"#,
        #"<additionalParameters><param name="key" value="value"/></additionalParameters>"#,
        #"<additionalParameters><param name="plan" value="gold"/></additionalParameters>"#,
        "<additionalParams></additionalParams>", "<additionalParameters></additionalParameters>",
        "<additionalParams/>", "<?xml version=\"1.0\" encoding=\"UTF-8\"?><additionalParams/>",
        #"<additionalParams><param name="k" value="&#x27;h&gt;e&amp;l&quot;l&lt;o&#x27;" /></additionalParams>"#,
        #"<additionalParams><param name="k" value="&#39;h&gt;e&amp;l&quot;l&lt;o&#39;" /></additionalParams>"#,
        #"<additionalParameters><param name="" value="x"/><param name="plan" value="gold"/>"#
            + #"<param name="" value="y"/></additionalParameters>"#,
        #"<additionalParams><!-- a note --><param name="a" value="b" /></additionalParams>"#,
        #"<additionalParams><param name="a" value="&amp;lt;" /></additionalParams>"#,
        #"<additionalParameters><param name="huge" value="99999999999999999999"/></additionalParameters>"#,
        #"<additionalParameters><param name="age" value="35.9"/><param name="ok" value="true"/></additionalParameters>"#,
        #"<!DOCTYPE x [<!ENTITY a "b">]><additionalParams/>"#,
        #"<additionalParams><param name="a" value="&lol;" /></additionalParams>"#,
        #"<additionalParams><param name="a" value="&#0;" /></additionalParams>"#,
        #"<additionalParams><param name="a" value="x" /><param name="a" value="y" /></additionalParams>"#,
        #"<additionalParams><item name="a" value="x" /></additionalParams>"#,
        #"<params><param name="a" value="x" /></params>"#,
        #"<additionalParams><param name="a" /></additionalParams>"#,
        #"<additionalParams><param value="x" /></additionalParams>"#,
        #"<additionalParams><param name="a" value="x" other="y" /></additionalParams>"#,
        #"<additionalParams>text</additionalParams>"#,
        #"<additionalParams><param name="a" value="x" />"#,
        #"<additionalParams><param name="a" value="x" /></additionalParameters>"#,
        #"<additionalParams/><additionalParams/>"#,
        #"<additionalParams><![CDATA[x]]></additionalParams>"#,
        #"<additionalParams><?pi x?></additionalParams>"#,
        #"<additionalParams><p:param xmlns:p="urn:x" name="a" value="b"/></additionalParams>"#,
        #"<additionalParams><param name=a value="x" /></additionalParams>"#,
        #"<additionalParams><param name="a" value="x<y" /></additionalParams>"#,
        #"<additionalParams><param name="a"value="x" /></additionalParams>"#,
        "<additionalParams>\r\n<param name=\"a\" value=\"b\"/>\r\n</additionalParams>",
        "<additionalParams>\r<param name=\"a\" value=\"b\"/>\n</additionalParams>",
        "<additionalParams>\n\t<param name=\"a\" value=\"b\"/>\n</additionalParams>",
        #"<additionalParams a="1"/>"#, #"<additionalParams xmlns="urn:x"/>"#, "not xml at all",
        #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>"#
            + #"<additionalParams><param name="a" value="&lol2;" /></additionalParams>"#,
    ]

    @Test func readsTheSDKShapesDirectly() {
        for xml in Self.vectors.prefix(3) {
            #expect(AdditionalParamsReader.canonicalParams(Array(xml.utf8)) != nil, "\(xml)")
        }
    }

    @Test func agreesWithTheTreeOnTheVectors() {
        for xml in Self.vectors { compare(xml) }
    }

    /// Seeded, so every run reads the same documents: canonical ones, broken ones, and canonical ones with a
    /// few bytes deleted, inserted or replaced.
    @Test func agreesWithTheTreeOnGeneratedDocuments() {
        var random = SeededRandom(state: 0x5EED_0A11)
        var outcomes: [Outcome: Int] = [:]
        for _ in 0..<16_000 {
            var bytes = Array(Self.document(&random).utf8)
            if Bool.random(using: &random) {
                for _ in 0..<Int.random(in: 1...3, using: &random) { Self.mutate(&bytes, &random) }
            }
            outcomes[compare(String(decoding: bytes, as: UTF8.self)), default: 0] += 1
        }
        // Every kind of document was met often enough for the agreement to mean something.
        #expect(outcomes[.readDirectly, default: 0] > 2500, "\(outcomes)")
        #expect(outcomes[.readAsTree, default: 0] > 500, "\(outcomes)")
        #expect(outcomes[.refused, default: 0] > 5000, "\(outcomes)")
    }

    enum Outcome { case readDirectly, readAsTree, refused, empty }

    /// Checks that `parse` (the direct reading first) answers as the tree alone does, and that a direct
    /// reading gives the tree's params.
    @discardableResult
    func compare(_ xml: String, sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
        let bytes = Array(xml.utf8)
        let canonical = AdditionalParamsReader.canonicalParams(bytes)
        // An empty or blank text is no params before either reading looks at it.
        if bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) {
            #expect(canonical == nil, sourceLocation: sourceLocation)
            return .empty
        }
        let tree = reading { () throws(RegistrationError) in try AdditionalParamsReader.parseTree(bytes) }
        let parsed = reading { () throws(RegistrationError) in try AdditionalParamsReader.parse(xml) }
        #expect(parsed == tree, "\(xml)", sourceLocation: sourceLocation)
        if let canonical {
            #expect(tree == .success(canonical), "\(xml)", sourceLocation: sourceLocation)
            return .readDirectly
        }
        if case .success = tree { return .readAsTree }
        return .refused
    }

    private func reading(
        _ body: () throws(RegistrationError) -> [AdditionalParam]
    ) -> Result<[AdditionalParam], RegistrationError> {
        do {
            return .success(try body())
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Documents

    static let spaces = ["", "", "", " ", " ", "  ", "\t", "\n", "\n  ", "\r\n", " \n\t", "\r"]
    static let names = ["", "a", "b", "plan", "email", "userPoints", "é", "k-1", "name", "value", "a b", "x'y", "ключ"]
    static let values = [
        "", "gold", "3233", "true", "false", "3.14", "1e5", "-12", "99999999999999999999", "email@email.com", "é ✓",
        "a>b", "\u{7F}", "]]>", "/>", " spaced ", "=",
    ]
    /// Values the direct reading leaves to the tree, or that break the document when quoted with `"`.
    static let trickyValues = [
        "it's", "say \"hi\"", "x&amp;y", "&lt;", "&#x27;", "a<b", "a&b", "tab\there", "line\nbreak", "cr\rhere",
        "\u{1}",
    ]

    /// Mostly the canonical shape, with now and then something the tree reads otherwise or refuses.
    static func document(_ random: inout SeededRandom) -> String {
        func pick(_ choices: [String]) -> String { choices.randomElement(using: &random)! }
        func rarely() -> Bool { Int.random(in: 0..<12, using: &random) == 0 }
        var root = pick(["additionalParams", "additionalParameters"])
        var xml = pick(spaces)
        if rarely() { xml += #"<?xml version="1.0"?>"# + pick(spaces) }
        xml += "<" + root + (rarely() ? #" a="1""# : "") + pick(spaces)
        if rarely() { return xml + "/>" + pick(spaces) }
        xml += ">"
        for number in 0..<Int.random(in: 0...5, using: &random) {
            xml += pick(spaces) + param(number, &random)
            if rarely() { xml += pick(["text", "<!-- c -->", "<![CDATA[ ]]>", "<item/>", "&amp;"]) }
        }
        if rarely() { root = pick(["additionalParams", "additionalParameters", "additionalParamsX"]) }
        return xml + pick(spaces) + "</" + root + pick(spaces) + ">" + pick(spaces)
    }

    /// The `number`th param: its name made unique, but now and then not.
    static func param(_ number: Int, _ random: inout SeededRandom) -> String {
        func pick(_ choices: [String]) -> String { choices.randomElement(using: &random)! }
        func rarely() -> Bool { Int.random(in: 0..<40, using: &random) == 0 }
        func attribute(_ name: String, _ value: String) -> String {
            let quote = pick(["\"", "'"])
            return (rarely() ? "" : " ") + pick(spaces) + name + pick(spaces) + "=" + pick(spaces) + quote + value
                + quote
        }
        var name = pick(names)
        if !name.isEmpty && Int.random(in: 0..<4, using: &random) > 0 { name += "\(number)" }
        var attributes = [attribute("name", name), attribute("value", pick(rarely() ? trickyValues : values))]
        if rarely() { attributes.removeFirst() }
        if rarely() { attributes.removeLast() }
        if rarely() { attributes.append(attribute(pick(["name", "value", "other", "xmlns"]), pick(values))) }
        attributes.shuffle(using: &random)
        let end = rarely() ? pick(["></param>", ">", "/ >", "> </param>"]) : "/>"
        return "<" + (rarely() ? "params" : "param") + attributes.joined() + pick(spaces) + end
    }

    static let insertions = [
        "<", ">", "&", "\"", "'", "/", " ", "\t", "=", "x", "é", "<!-- c -->", "<![CDATA[x]]>", "<?pi?>", "&amp;",
        "&#x27;", #" name="q""#, #"<param name="z" value="1"/>"#, "</param>", "\u{FEFF}", "\0",
    ]

    static func mutate(_ bytes: inout [UInt8], _ random: inout SeededRandom) {
        let at = Int.random(in: 0...bytes.count, using: &random)
        switch Int.random(in: 0..<4, using: &random) {
        case 0 where at < bytes.count:
            bytes.remove(at: at)
        case 1 where at < bytes.count:
            bytes[at] = UInt8.random(in: 0..<128, using: &random)
        case 2:
            let end = Int.random(in: at...min(bytes.count, at + 40), using: &random)
            bytes.insert(contentsOf: bytes[at..<end], at: at)
        default:
            bytes.insert(contentsOf: insertions.randomElement(using: &random)!.utf8, at: at)
        }
    }

    /// SplitMix64: the same documents on every run.
    struct SeededRandom: RandomNumberGenerator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }
}
