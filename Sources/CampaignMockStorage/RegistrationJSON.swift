import CampaignMockModel
import CampaignMockSupport

/// The JSON a registration stores for its device fields and params (`registrations.fields`, `.params`),
/// written by hand: it is on every registration's path, where Foundation's encoder cost more than the
/// SQLite work. The text is exactly what `JSONEncoder` with sorted keys and unescaped slashes writes
/// (a test compares them), so rows written before and after compare equal.
///
/// Each member goes into one buffer as its key (with the separator and quotes before it, one copy of a
/// static text) and its value: an object writer per object, and a key written byte by byte, cost three
/// times as much.
package enum RegistrationJSON {
    static func fields(_ device: DeviceFields) -> String {
        // Every member is written with a leading comma; the first one's becomes the opening brace.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        member(",\"deviceBrand\":", device.deviceBrand, to: &bytes)
        member(",\"deviceImei\":", device.deviceImei, to: &bytes)
        member(",\"deviceManufacturer\":", device.deviceManufacturer, to: &bytes)
        member(",\"deviceModel\":", device.deviceModel, to: &bytes)
        member(",\"deviceName\":", device.deviceName, to: &bytes)
        member(",\"osLanguage\":", device.osLanguage, to: &bytes)
        member(",\"osName\":", device.osName, to: &bytes)
        member(",\"osVersion\":", device.osVersion, to: &bytes)
        guard !bytes.isEmpty else { return "{}" }
        bytes[0] = UInt8(ascii: "{")
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    static func params(_ params: [AdditionalParam]) -> String {
        guard !params.isEmpty else { return "[]" }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + 64 * params.count)
        for param in params {
            member(",{\"name\":", param.name, to: &bytes)
            member(",\"type\":", param.kind.rawValue, to: &bytes)
            member(",\"value\":", param.value, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes[0] = UInt8(ascii: "[")
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `key` (a static text: separator, quoted name, colon) and the string `value`; nothing when it is nil.
    private static func member(_ key: StaticString, _ value: String?, to bytes: inout [UInt8]) {
        guard let value else { return }
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        JSONStringWriter.append(value, to: &bytes)
    }
}
