/// The JSON a registration stores for its device fields and params (`registrations.fields`, `.params`),
/// written by hand: it is on every registration's path, where Foundation's encoder cost more than the
/// SQLite work. The text is exactly what `JSONEncoder` with sorted keys and unescaped slashes writes
/// (a test compares them), so rows written before and after compare equal.
enum RegistrationJSON {
    static func fields(_ device: DeviceFields) -> String {
        let members: [(StaticString, String?)] = [
            ("\"deviceBrand\":", device.deviceBrand), ("\"deviceImei\":", device.deviceImei),
            ("\"deviceManufacturer\":", device.deviceManufacturer), ("\"deviceModel\":", device.deviceModel),
            ("\"deviceName\":", device.deviceName), ("\"osLanguage\":", device.osLanguage),
            ("\"osName\":", device.osName), ("\"osVersion\":", device.osVersion),
        ]
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (key, value) in members {
            guard let value else { continue }
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            JSONStringWriter.raw(key, to: &bytes)
            JSONStringWriter.append(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    static func params(_ params: [AdditionalParam]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        for (index, param) in params.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONStringWriter.raw("{\"name\":", to: &bytes)
            JSONStringWriter.append(param.name, to: &bytes)
            JSONStringWriter.raw(",\"type\":", to: &bytes)
            JSONStringWriter.append(param.kind.rawValue, to: &bytes)
            JSONStringWriter.raw(",\"value\":", to: &bytes)
            JSONStringWriter.append(param.value, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
