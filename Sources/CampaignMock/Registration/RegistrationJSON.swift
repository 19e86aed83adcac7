/// The JSON a registration stores for its device fields and params (`registrations.fields`, `.params`),
/// written by hand: it is on every registration's path, where Foundation's encoder cost more than the
/// SQLite work. The text is exactly what `JSONEncoder` with sorted keys and unescaped slashes writes
/// (a test compares them), so rows written before and after compare equal.
enum RegistrationJSON {
    static func fields(_ device: DeviceFields) -> String {
        let members: [(String, String?)] = [
            ("deviceBrand", device.deviceBrand), ("deviceImei", device.deviceImei),
            ("deviceManufacturer", device.deviceManufacturer), ("deviceModel", device.deviceModel),
            ("deviceName", device.deviceName), ("osLanguage", device.osLanguage), ("osName", device.osName),
            ("osVersion", device.osVersion),
        ]
        var text = "{"
        for (name, value) in members {
            guard let value else { continue }
            if text.count > 1 { text += "," }
            text += "\"\(name)\":"
            append(value, to: &text)
        }
        return text + "}"
    }

    static func params(_ params: [AdditionalParam]) -> String {
        var text = "["
        for (index, param) in params.enumerated() {
            if index > 0 { text += "," }
            text += "{\"name\":"
            append(param.name, to: &text)
            text += ",\"type\":\"\(param.kind.rawValue)\",\"value\":"
            append(param.value, to: &text)
            text += "}"
        }
        return text + "]"
    }

    /// A JSON string: quotes, backslashes and control characters escaped; everything else as it is.
    private static func append(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
