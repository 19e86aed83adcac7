import CampaignMockJournal

extension Paging {
    /// The SQL condition on `column` for the page's cursors, its values, and the order to read in.
    func clause(_ column: String) -> (condition: String, values: [any SQLiteBindable], order: String) {
        switch self {
        case .newestFirst(let before): ("(? IS NULL OR \(column) < ?)", [before, before], "\(column) DESC")
        case .oldestFirst(let after, let before):
            ("\(column) > ? AND (? IS NULL OR \(column) < ?)", [after, before, before], column)
        }
    }
}
