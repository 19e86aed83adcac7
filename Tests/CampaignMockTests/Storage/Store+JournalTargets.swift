@testable import CampaignMockModel
@testable import CampaignMockStorage

extension Store {
    /// The target of every journal entry, oldest first, read page by page.
    func journalTargets() throws -> [String] {
        var targets: [String] = []
        var after: Int64 = 0
        while true {
            let cursor = after
            let page = try read { try $0.journalPage(after: cursor, limit: 1000) }
            targets += page.requests.map(\.target)
            guard let next = page.nextCursor else { return targets }
            after = next
        }
    }
}
