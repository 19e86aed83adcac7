#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Header lists stored as JSON text: `[["Host","a"],["Accept","*/*"]]`.
enum JSONArrays {
    static func encodePairs(_ pairs: [(String, String)]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        for (index, pair) in pairs.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "["))
            JSONStringWriter.append(pair.0, to: &bytes)
            bytes.append(UInt8(ascii: ","))
            JSONStringWriter.append(pair.1, to: &bytes)
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    static func decodePairs(_ text: String) -> [[String]] {
        (try? JSONDecoder().decode([[String]].self, from: Data(text.utf8))) ?? []
    }
}
