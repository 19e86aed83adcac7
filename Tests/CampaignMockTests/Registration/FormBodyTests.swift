import Testing

@testable import CampaignMockMobile

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
    ])
    func decodesValuesAsBothSDKsEncodeThem(_ body: String, _ expected: String) throws {
        #expect(try FormBody(parsing: Array(body.utf8))["userKey"] == expected)
    }

    @Test(arguments: [
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
    ])
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
