#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Header lists stored as JSON text: `[["Host","a"],["Accept","*/*"]]`.
enum JSONArrays {
    static func encodePairs(_ pairs: [(String, String)]) -> String {
        let data = (try? JSONEncoder().encode(pairs.map { [$0.0, $0.1] })) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func decodePairs(_ text: String) -> [[String]] {
        (try? JSONDecoder().decode([[String]].self, from: Data(text.utf8))) ?? []
    }
}
