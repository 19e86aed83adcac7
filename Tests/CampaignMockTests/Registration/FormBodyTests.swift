import CampaignMockModel
import Testing

@testable import CampaignMockMobile

/// The UTF-8 of `text`, then `tail` (bytes that are not UTF-8).
private func bytes(_ text: String, _ tail: UInt8...) -> [UInt8] { Array(text.utf8) + tail }

/// Bodies refused, with the reason each gets.
private let malformedBodies: [([UInt8], String)] = [
    ([UInt8]("userKey=%4".utf8), "malformed percent-encoding in parameter 'userKey'"),
    ([UInt8]("userKey=%zz".utf8), "malformed percent-encoding in parameter 'userKey'"),
    ([UInt8]("userKey=%FF".utf8), "malformed percent-encoding in parameter 'userKey'"),
    ([UInt8]("userKey=a&userKey=b".utf8), "parameter 'userKey' appears more than once"),
    ([UInt8]("a=1&&b=2".utf8), "empty parameter between '&' separators"),
    ([UInt8]("&a=1".utf8), "empty parameter between '&' separators"),
    ([UInt8]("a=1&".utf8), "empty parameter between '&' separators"),
    ([UInt8]("=1".utf8), "parameter without a name before '='"),
    ([UInt8]("a%zz=1".utf8), "malformed parameter name 'a%zz'"),
    ([0x75, 0x3D, 0xFF], "the body is not UTF-8"),
    // Whatever else is wrong, and wherever the stray byte lies.
    (bytes("a=1&&b=", 0xFF), "the body is not UTF-8"),
    (bytes("userKey=%zz&b=", 0xC3), "the body is not UTF-8"),
    (bytes("userKey=a&userKey=b&c=", 0xE6, 0x97), "the body is not UTF-8"),
    // A name is compared once decoded, a known one or another.
    ([UInt8]("userKey=a&user%4Bey=b".utf8), "parameter 'userKey' appears more than once"),
    ([UInt8]("user%4Bey=a&userKey=b".utf8), "parameter 'userKey' appears more than once"),
    ([UInt8]("plan=a&plan=b".utf8), "parameter 'plan' appears more than once"),
    ([UInt8]("a+b=1&a%20b=2".utf8), "parameter 'a b' appears more than once"),
    ([UInt8]("user%4Bey=%zz".utf8), "malformed percent-encoding in parameter 'userKey'"),
    ([UInt8]("plan=%4".utf8), "malformed percent-encoding in parameter 'plan'"),
    ([UInt8]("pl%61n=%E6%97".utf8), "malformed percent-encoding in parameter 'plan'"),
    ([UInt8]("a%FF=1".utf8), "malformed parameter name 'a%FF'"),
    // The first fault of the body is the one reported.
    ([UInt8]("userKey=%zz&userKey=b".utf8), "malformed percent-encoding in parameter 'userKey'"),
    ([UInt8]("userKey=a&=b&userKey=c".utf8), "parameter without a name before '='"),
    ([UInt8]("osName=a&osName=b&&".utf8), "parameter 'osName' appears more than once"),
]

@Suite struct FormBodyTests {
    @Test func decodesTheAndroidRegistrationBodyOfTheSDKTest() throws {
        let body =
            "registrationToken=testToken&mobileAppUuid=testIntegrationKey&userKey=testUser&deviceImei=12345"
            + "&deviceName=mockDevice&deviceModel=mockDeviceName&deviceBrand=mockDeviceBrand"
            + "&deviceManufacturer=mockDeviceManufacturer&osName=android&osVersion=mockOSName%20mockOSVersion"
            + "&osLanguage=mocklocale&additionalParams=%3CadditionalParameters%3E%3Cparam%20name%3D%22key%22%20"
            + "value%3D%22value%22%2F%3E%3C%2FadditionalParameters%3E"
        let form = try FormBody(parsing: Array(body.utf8))
        #expect(form.fields.count == 12)
        #expect(form["osVersion"] == "mockOSName mockOSVersion")
        #expect(
            form["additionalParams"]
                == #"<additionalParameters><param name="key" value="value"/></additionalParameters>"#)
    }

    @Test(arguments: [
        ("userKey=user%40email.com", "user@email.com"),
        ("userKey=", ""),
        ("userKey", ""),
        ("userKey=Jos%C3%A9", "José"),
        ("userKey=José", "José"),
        ("userKey=日本", "日本"),
        ("userKey=a+b", "a b"),
        ("userKey=a%2Bb", "a+b"),
        ("userKey=a=b", "a=b"),
        ("osName=ios&userKey=last", "last"),
        ("user%4Bey=escaped+name", "escaped name"),
        ("userKey=a%26b%3Dc&osName=ios", "a&b=c"),
        ("plan=gold&userKey=José+%C3%A9", "José é"),
    ])
    func decodesValuesAsBothSDKsEncodeThem(_ body: String, _ expected: String) throws {
        #expect(try FormBody(parsing: Array(body.utf8))["userKey"] == expected)
    }

    @Test func keepsTheFieldsARegistrationDoesNotRead() throws {
        let form = try FormBody(parsing: Array("plan=gold&a+b=1&Jos%C3%A9=2&userkey=3&Bénédicte=4&userKey=5".utf8))
        #expect(form["plan"] == "gold")
        #expect(form["a b"] == "1")
        #expect(form["José"] == "2")
        #expect(form["userkey"] == "3")
        #expect(form["Bénédicte"] == "4")
        #expect(form["userKey"] == "5")
        #expect(form["registrationToken"] == nil)
        #expect(form["pla"] == nil)
        #expect(form.fields.count == 6)
    }

    @Test func readsAnEmptyBodyAsNoField() throws {
        #expect(try FormBody(parsing: []).fields.isEmpty)
    }

    @Test(arguments: malformedBodies)
    func refusesMalformedBodies(_ body: [UInt8], _ reason: String) {
        #expect(throws: RegistrationError.malformed(reason)) { try FormBody(parsing: body) }
    }

    @Test(arguments: [
        ("application/x-www-form-urlencoded;charset=UTF-8", true),
        ("application/x-www-form-urlencoded", true),
        ("Application/X-WWW-Form-Urlencoded ; charset=utf-8", true),
        ("application/json", false),
        ("text/plain;charset=UTF-8", false),
        ("multipart/form-data; boundary=x", false),
        ("\t application/x-www-form-urlencoded\t;q", true),
        ("application/x-www-form-urlencodedx", false),
        ("application/x-www-form", false),
        ("", false),
    ])
    func acceptsTheFormContentTypeWithAnyParameters(_ value: String, _ accepted: Bool) {
        #expect(RegistrationEndpoint.isFormContentType(value) == accepted)
    }
}
