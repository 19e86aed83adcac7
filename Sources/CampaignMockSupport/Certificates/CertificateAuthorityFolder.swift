/// Where the local CA of `--tls auto` lives: one folder per user, as mkcert's CAROOT, shared by every
/// data directory, so a simulator or a phone trusts it once.
package enum CertificateAuthorityFolder {
    /// The variable that names the folder, for a CA of one's own (a team's, kept in a CI secret) or
    /// another place.
    package static let variable = "CAMPAIGN_MOCK_CAROOT"

    /// `CAMPAIGN_MOCK_CAROOT` when set, else `$HOME/Library/Application Support/campaign-mock/ca` on macOS
    /// and `${XDG_DATA_HOME:-$HOME/.local/share}/campaign-mock/ca` elsewhere; nil when neither that nor
    /// `HOME` is set. An empty variable counts as unset.
    package static func path(environment: [String: String]) -> String? {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let folder = value(variable) { return folder }
        #if os(macOS)
            return value("HOME").map { $0 + "/Library/Application Support/campaign-mock/ca" }
        #else
            if let data = value("XDG_DATA_HOME") { return data + "/campaign-mock/ca" }
            return value("HOME").map { $0 + "/.local/share/campaign-mock/ca" }
        #endif
    }

    /// What to say when ``path(environment:)`` finds no folder.
    package static let missing = "the local CA is kept in \(variable), or under HOME: set one of them"
}
