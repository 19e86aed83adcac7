/// The product version: `campaign-mock --version`, `/_mock/info`, the SOAP `GetServerInfo`, the health
/// pages. A release is the tag `v<version>`, and CHANGELOG.md must have its section.
package enum CampaignMockVersion {
    package static let current = "0.2.0"
}
