import CampaignMockModel
import Foundation
import Testing

/// The stream's event names are written once, in ``StreamEventType``: the server publishes them and `tail`
/// filters by them through the type; the console and the OpenAPI description, which cannot import it, are
/// held to it here.
@Suite struct StreamEventTypeTests {
    private static let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static func text(_ path: String) throws -> String {
        try String(contentsOf: projectRoot.appendingPathComponent(path), encoding: .utf8)
    }

    private static func matches(_ pattern: String, in text: String) throws -> [String] {
        let expression = try NSRegularExpression(pattern: pattern)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test func theConsoleListensToEveryEventType() throws {
        let script = try Self.text("Sources/CampaignMockAdmin/Console/web/console.js")
        var handled = Set(try Self.matches(#"(?:handle|source\.addEventListener)\("(\w+)""#, in: script))
        for list in try Self.matches(
            #"for \(const type of \[([^\]]*)\]\)\s*\{?\s*(?:handle|source\.addEventListener)\(type"#, in: script)
        {
            handled.formUnion(try Self.matches(#""(\w+)""#, in: list))
        }
        #expect(handled == Set(StreamEventType.allCases.map(\.rawValue)))
    }

    @Test func theOpenAPIDescriptionOffersTheSelectableTypes() throws {
        let document =
            try JSONSerialization.jsonObject(
                with: Data(try Self.text("Sources/CampaignMockAdmin/API/openapi.json").utf8)) as? [String: Any]
        let get = ((document?["paths"] as? [String: Any])?["/_mock/stream"] as? [String: Any])?["get"] as? [String: Any]
        let parameter = (get?["parameters"] as? [[String: Any]])?.first { $0["name"] as? String == "type" }
        let pattern = try #require((parameter?["schema"] as? [String: Any])?["pattern"] as? String)
        let listed = try #require(try Self.matches(#"^\^\(([a-z|]+)\)"#, in: pattern).first)
        #expect(
            listed.split(separator: "|").map(String.init)
                == StreamEventType.allCases.filter(\.isSelectable).map(\.rawValue))
        let description = get?["description"] as? String ?? ""
        for type in StreamEventType.allCases where !type.isSelectable {
            #expect(description.contains("`\(type.rawValue)`"), "the description says when \(type.rawValue) comes")
        }
    }
}
