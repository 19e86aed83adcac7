import Testing

@testable import CampaignMockSupport

@Suite struct XMLReaderTests {
    private func parse(_ text: String, limits: XMLReader.Limits = .init()) throws -> MarkupElement {
        try XMLReader.parse(Array(text.utf8), limits: limits)
    }

    @Test func resolvesNamespacesOfElementsAndAttributes() throws {
        let root = try parse(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:xtk:session">
              <soapenv:Header/>
              <soapenv:Body><urn:Logon><urn:sessiontoken/><strLogin xmlns="urn:other" a="1">admin</strLogin></urn:Logon></soapenv:Body>
            </soapenv:Envelope>
            """)
        #expect(root.localName == "Envelope")
        #expect(root.namespace == "http://schemas.xmlsoap.org/soap/envelope/")
        let logon = try #require(root.element("Body")?.elements.first)
        #expect(logon.name == "urn:Logon")
        #expect(logon.namespace == "urn:xtk:session")
        let login = try #require(logon.element("strLogin"))
        #expect(login.namespace == "urn:other")
        #expect(login.text == "admin")
        #expect(login.attributes.first?.namespace == nil)
    }

    /// The innermost declaration of a prefix wins, and only inside its element; `xml` needs none.
    @Test func innerDeclarationsShadowOuterOnesOnlyInside() throws {
        let root = try parse(
            """
            <p:a xmlns:p="urn:outer" xmlns="urn:default" xml:lang="en">            <p:b xmlns:p="urn:inner"><p:c/></p:b><p:d/><e xmlns=""><f/></e><g/></p:a>
            """)
        #expect(root.namespace == "urn:outer")
        #expect(root.attributes.first { $0.name == "xml:lang" }?.namespace == "http://www.w3.org/XML/1998/namespace")
        let inner = try #require(root.element("b"))
        #expect(inner.namespace == "urn:inner")
        #expect(inner.element("c")?.namespace == "urn:inner")
        #expect(root.element("d")?.namespace == "urn:outer")
        let undeclared = try #require(root.element("e"))
        #expect(undeclared.namespace == nil)
        #expect(undeclared.element("f")?.namespace == nil)
        #expect(root.element("g")?.namespace == "urn:default")
    }

    /// Attribute values taken as they lie, and those with a reference or a line break to replace.
    @Test func readsAttributeValuesWithAndWithoutReplacements() throws {
        let root = try parse("<a plain='gold' ref=\"x&amp;y\" spaced='a\tb\nc' empty=''/>")
        #expect(root.attribute("plain") == "gold")
        #expect(root.attribute("ref") == "x&y")
        #expect(root.attribute("spaced") == "a b c")
        #expect(root.attribute("empty") == "")
    }

    @Test func decodesReferencesCDATAAndSkipsComments() throws {
        let root = try parse("<a t='&lt;&#x27;&#39;&amp;'><!-- note -->x&gt;<![CDATA[<b>&amp;</b>]]>y</a>")
        #expect(root.attribute("t") == "<''&")
        #expect(root.text == "x><b>&amp;</b>y")
        #expect(root.elements.isEmpty)
    }

    @Test(arguments: [
        ("<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>", "DTDs and entity declarations are not accepted"),
        (
            "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol1 \"&lol;&lol;\">]><a>&lol1;</a>",
            "DTDs"
        ),
        ("<!DOCTYPE a SYSTEM \"file:///etc/passwd\"><a/>", "DTDs"),
        ("<a><!ENTITY x \"y\"></a>", "DTDs"),
        ("<a>&xxe;</a>", "not one of the five predefined ones"),
        ("<a><?php x ?></a>", "processing instructions"),
        ("<p:a/>", "prefix 'p' of 'p:a' is not declared"),
        ("<a b='1' b='2'/>", "attribute 'b' is repeated"),
        ("<a b=1/>", "attribute values must be quoted"),
        ("<a></b>", "</b> does not close <a>"),
        ("<ab></abc>", "</abc> does not close <ab>"),
        ("<abc></ab>", "</ab> does not close <abc>"),
        ("<a></a:b>", "</a:b> does not close <a>"),
        ("<a></1>", "'1' is not a valid name"),
        ("<a>", "unterminated element <a>"),
        ("<a/><b/>", "content after the root element"),
        ("", "no root element"),
        ("text", "expected the root element"),
        ("<a>&#0;</a>", "invalid character reference"),
        ("<a><!-- never closed </a>", "unterminated comment"),
    ])
    func refuses(_ text: String, _ fragment: String) {
        do {
            _ = try parse(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect((error as? XMLError)?.reason.contains(fragment) == true, "\(error)")
        }
    }

    /// A closing tag may end with spaces, and names the element as Swift compares text: an equivalent
    /// spelling (here `é` decomposed) closes it as well.
    @Test(arguments: ["<a></a >", "<a></a\n>", "<é></é>", "<é></e\u{301}>", "<p:a xmlns:p='u'></p:a>"])
    func acceptsTheClosingTag(_ text: String) throws {
        #expect(try parse(text).elements.isEmpty)
    }

    @Test func boundsDepthAndElementCount() throws {
        var shallow = XMLReader.Limits()
        shallow.depth = 3
        #expect(throws: XMLError.self) { try parse("<a><b><c><d/></c></b></a>", limits: shallow) }
        #expect(try parse("<a><b><c/></b></a>", limits: shallow).localName == "a")
        var few = XMLReader.Limits()
        few.elements = 10
        #expect(throws: XMLError.self) { try parse("<a>" + String(repeating: "<b/>", count: 10) + "</a>", limits: few) }
    }

    @Test func refusesInvalidUTF8InNames() {
        #expect(throws: XMLError.self) { try XMLReader.parse([0x3C, 0xC3, 0x28, 0x2F, 0x3E]) }
    }
}
