import Foundation
import Testing

/// What the target graph cannot say by itself (SwiftPM already refuses a cycle between targets): that the
/// Swift client declares none of the server's types again, that the model stays free of the server's
/// dependencies, so the client keeps building with Foundation alone, and that push and the endpoint targets
/// keep to their places (a module built for another target can be imported without being declared).
@Suite struct ArchitectureTests {
    private static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// The top-level and nested type names declared in the Swift files under `target`.
    private static func declaredTypes(in target: String) throws -> Set<String> {
        let folder = sources.appendingPathComponent(target)
        let expression = try NSRegularExpression(
            pattern:
                #"(?m)^\s*(?:public |package |private |fileprivate |final |indirect )*(?:struct|enum|class|protocol|actor) (\w+)"#
        )
        var names: Set<String> = []
        for case let file as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)!
        where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                names.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        return names
    }

    @Test func theClientDeclaresNoneOfTheServersTypesAgain() throws {
        let client = try Self.declaredTypes(in: "CampaignMockClient")
        #expect(!client.isEmpty)
        let server = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path)
            .filter { $0.hasPrefix("CampaignMock") && $0 != "CampaignMockClient" && $0 != "CampaignMockCLI" }
        #expect(server.contains("CampaignMockModel") && server.contains("CampaignMockStorage"))
        for target in server {
            let repeated = client.intersection(try Self.declaredTypes(in: target)).sorted()
            #expect(repeated.isEmpty, "declared in CampaignMockClient and \(target): \(repeated)")
        }
    }

    @Test func theModelImportsNothingButTheStandardLibrary() throws {
        let folder = Self.sources.appendingPathComponent("CampaignMockModel")
        for case let file as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)!
        where file.pathExtension == "swift" {
            let imports = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                .filter { $0.contains("import ") && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            #expect(imports.isEmpty, "\(file.lastPathComponent): \(imports)")
        }
    }

    /// The modules the Swift files under `target` import.
    private static func imports(in target: String) throws -> Set<String> {
        let folder = sources.appendingPathComponent(target)
        var modules: Set<String> = []
        for case let file as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)!
        where file.pathExtension == "swift" {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ")
                if let index = words.firstIndex(of: "import"), index + 1 < words.count,
                    words[..<index].allSatisfy({ ["package", "public", "internal", "@testable"].contains($0) })
                {
                    modules.insert(String(words[index + 1]))
                }
            }
        }
        return modules
    }

    @Test func pushImportsNeitherTheRuntimeNorAnEndpointTarget() throws {
        let imported = try Self.imports(in: "CampaignMockPush")
        #expect(imported.contains("CampaignMockStorage"))
        let above: Set = ["CampaignMockRuntime", "CampaignMockMobile", "CampaignMockSOAP", "CampaignMockAdmin"]
        #expect(imported.isDisjoint(with: above), "CampaignMockPush imports \(imported.intersection(above).sorted())")
    }

    @Test func theEndpointTargetsImportNoneOfEachOther() throws {
        let endpoints = ["CampaignMockMobile", "CampaignMockSOAP", "CampaignMockAdmin"]
        for target in endpoints {
            let imported = try Self.imports(in: target)
            #expect(imported.contains("CampaignMockRuntime"))
            let others = Set(endpoints).subtracting([target])
            #expect(imported.isDisjoint(with: others), "\(target) imports \(imported.intersection(others).sorted())")
        }
        #expect(!(try Self.imports(in: "CampaignMockMobile")).contains("CampaignMockPush"))
    }
}
