import ArgumentParser
import CampaignMock
import CampaignMockAdmin
import CampaignMockMobile
import CampaignMockModel
import CampaignMockRecording
import CampaignMockRuntime
import CampaignMockSOAP
import CampaignMockStorage
import CampaignMockSupport

/// `campaign-mock version`.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Print the version.")

    func run() {
        print(BuildInfo.versionLine)
    }
}
