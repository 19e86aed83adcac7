import CampaignMockModel
import CampaignMockSupport

/// The JSON a registration stores for its device fields and params (`registrations.fields`, `.params`),
/// written by hand: it is on every registration's path, where Foundation's encoder cost more than the
/// SQLite work. The text is exactly what `JSONEncoder` with sorted keys and unescaped slashes writes
/// (a test compares them), so rows written before and after compare equal.
package enum RegistrationJSON {
    static func fields(_ device: DeviceFields) -> String {
        var object = JSONObjectWriter(capacity: 192)
        object.string("deviceBrand", device.deviceBrand)
        object.string("deviceImei", device.deviceImei)
        object.string("deviceManufacturer", device.deviceManufacturer)
        object.string("deviceModel", device.deviceModel)
        object.string("deviceName", device.deviceName)
        object.string("osLanguage", device.osLanguage)
        object.string("osName", device.osName)
        object.string("osVersion", device.osVersion)
        return String(decoding: object.finish(), as: UTF8.self)
    }

    static func params(_ params: [AdditionalParam]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        for (index, param) in params.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            var object = JSONObjectWriter(capacity: 64)
            object.string("name", param.name)
            object.string("type", param.kind.rawValue)
            object.string("value", param.value)
            bytes += object.finish()
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
