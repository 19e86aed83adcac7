package import CampaignMockHTTP
import CampaignMockSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The files a recording keeps beside its numbered exchanges:
///
/// - `recording.json`: `{"format": "campaign-mock-recording", "id": "…"}`. The replayer sends the id in
///   `X-Campaign-Mock-Replay`, and a server recording into this directory does not record its own replay.
/// - `secrets.json` (owner-only): the placeholders of a redacted recording that a replay must fill, with
///   their real values (integration keys, registration tokens, user keys, passwords, authorization), so
///   `campaign-mock replay DIR` works as it is on the machine that recorded. Session tokens are left out:
///   the replay learns the new ones.
/// - `.gitignore`: keeps `secrets.json` out of git, so a committed recording holds no secret.
package enum RecordingDirectory {
    /// The request header naming the recording a replayed request comes from.
    package static let replayHeader = HTTPHeaderName(rawValue: "X-Campaign-Mock-Replay")
    /// Placeholder kinds whose values a replay needs and cannot learn from an answer.
    static let replayableKinds: Set<String> = [
        "integrationKey", "registrationToken", "userKey", "password", "authorization",
    ]

    private struct Manifest: Codable {
        var format = "campaign-mock-recording"
        var id: String
    }

    /// Writes a new recording's manifest and `.gitignore`; returns its id.
    static func start(_ directory: String) throws(ExchangeFileError) -> String {
        let id = RandomText.uuid().lowercased()
        let manifest: [UInt8] = Array(#"{"format": "campaign-mock-recording", "id": "\#(id)"}"#.utf8) + [10]
        guard FileBytes.writeAtomically(manifest, to: "\(directory)/recording.json"),
            FileBytes.writeAtomically(Array("secrets.json\n".utf8), to: "\(directory)/.gitignore")
        else { throw ExchangeFileError("--record: cannot write into \(directory)") }
        return id
    }

    /// Replaces `secrets.json` with `secrets` (placeholder → value). False when it cannot be written.
    static func writeSecrets(_ secrets: [String: String], in directory: String) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(secrets) else { return false }
        return FileBytes.writeAtomically(Array(data) + [10], to: "\(directory)/secrets.json", ownerOnly: true)
    }

    /// The recording's id, or nil when the directory has no manifest (an older recording, loose files).
    package static func id(of directory: String) -> String? {
        guard let bytes = FileBytes.read("\(directory)/recording.json") else { return nil }
        return try? JSONDecoder().decode(Manifest.self, from: Data(bytes)).id
    }

    /// The directory's `secrets.json` (placeholder → value); empty when there is none.
    ///
    /// - Throws: ``ExchangeFileError`` when the file exists but is not a JSON object of strings.
    package static func secrets(of directory: String) throws(ExchangeFileError) -> [String: String] {
        guard let bytes = FileBytes.read("\(directory)/secrets.json") else { return [:] }
        guard let secrets = try? JSONDecoder().decode([String: String].self, from: Data(bytes)) else {
            throw ExchangeFileError("\(directory)/secrets.json is not a JSON object of strings")
        }
        return secrets
    }
}
