import Foundation
import Testing

@testable import CampaignMock

/// Every seed of the fuzz targets, and every crash they ever found (Fuzz/crashes/<target>-…), read
/// again through the same entry points: a crash that comes back fails the suite.
@Suite("fuzz corpus and crash regressions")
struct FuzzCorpusTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz").path

    private static func files(_ directory: String, prefix: String = "") -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(prefix) }
            .sorted().map { directory + "/" + $0 }
    }

    @Test(arguments: UntrustedInput.allCases)
    func readsEverySeedAndPastCrash(_ target: UntrustedInput) throws {
        let seeds = Self.files(Self.root + "/corpus/" + target.rawValue)
        #expect(!seeds.isEmpty, "no seeds for \(target.rawValue): python3 Fuzz/make-corpus.py")
        for file in seeds + Self.files(Self.root + "/crashes", prefix: target.rawValue + "-") {
            target.read(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        }
    }
}
