import CBuildInfo
import CampaignMockModel

/// What `campaign-mock --version` and `campaign-mock version` print: the version and the commit built.
enum BuildInfo {
    /// `campaign-mock 0.2.0 (commit 1a2b3c4d5e6f)`; `(commit unknown)` for a build the Makefile did not run.
    static var versionLine: String {
        let commit = String(cString: campaign_mock_build_commit())
        return "campaign-mock \(CampaignMockVersion.current) (commit \(commit.isEmpty ? "unknown" : commit))"
    }
}
