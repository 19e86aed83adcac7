import Foundation

/// What JSONEncoder writes for `value` with the store's and the admin API's settings (sorted keys,
/// unescaped slashes): the reference the hand-written JSON writers are compared with.
func encoderText(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
