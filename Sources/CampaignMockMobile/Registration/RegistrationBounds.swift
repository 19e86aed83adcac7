import CampaignMockModel
import CampaignMockSystem

/// The largest fields a registration may carry, in bytes of UTF-8 (docs/protocol.md §3.2, "Bounds"): far
/// above what the SDKs send (APNs tokens are 64 to 200 hex digits, FCM tokens about 160 characters, keys
/// UUID-like, user keys an email or an id), far below the 1 MiB body limit, so a client cannot make the
/// store, the checks, the log or the journal keep megabytes of one request. Checked on the fields already
/// read, by their byte counts: no copy.
package enum RegistrationBounds {
    package static let registrationToken = 4096
    package static let mobileAppUuid = 256
    package static let userKey = 256
    /// Each of `deviceImei`, `deviceName`, `deviceModel`, `deviceBrand`, `deviceManufacturer`, `osName`,
    /// `osVersion`, `osLanguage`.
    package static let deviceField = 1024
    package static let params = 64
    package static let paramName = 128
    package static let paramValue = 4096
    /// All the params' names and values together.
    package static let paramBytes = 16384

    /// Refuses the first field over its bound, and a token holding a control character.
    ///
    /// - Throws: ``RegistrationError/tooLong(field:limit:)``, ``RegistrationError/controlCharacter(field:)``.
    static func check(_ registration: RegistrationRequest) throws(RegistrationError) {
        try bound(registration.registrationToken, "registrationToken", registrationToken)
        try bound(registration.integrationKey, "mobileAppUuid", mobileAppUuid)
        try bound(registration.userKey, "userKey", userKey)
        let device = registration.device
        try bound(device.deviceImei, "deviceImei", deviceField)
        try bound(device.deviceName, "deviceName", deviceField)
        try bound(device.deviceModel, "deviceModel", deviceField)
        try bound(device.deviceBrand, "deviceBrand", deviceField)
        try bound(device.deviceManufacturer, "deviceManufacturer", deviceField)
        try bound(device.osName, "osName", deviceField)
        try bound(device.osVersion, "osVersion", deviceField)
        try bound(device.osLanguage, "osLanguage", deviceField)
        if PrintableText.hasControlCharacter(registration.registrationToken) {
            throw .controlCharacter(field: "registrationToken")
        }
    }

    /// Refuses more than ``params`` params, a name or value over its bound, or more than ``paramBytes`` in all.
    static func check(_ params: [AdditionalParam]) throws(RegistrationError) {
        guard params.count <= Self.params else { throw .tooManyParams(Self.params) }
        var total = 0
        for param in params {
            try bound(param.name, "additionalParams name", paramName)
            try bound(param.value, "additionalParams value of '\(param.name)'", paramValue)
            total += param.name.utf8.count + param.value.utf8.count
        }
        if total > paramBytes {
            throw .tooLong(field: "additionalParams (names and values together)", limit: paramBytes)
        }
    }

    /// `field` is made only for a refusal: a param's name in it cost every registration an interpolated
    /// string per param.
    private static func bound(_ value: String?, _ field: @autoclosure () -> String, _ limit: Int)
        throws(RegistrationError)
    {
        if let value, value.utf8.count > limit { throw .tooLong(field: field(), limit: limit) }
    }
}
