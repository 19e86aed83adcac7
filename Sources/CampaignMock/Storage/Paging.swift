/// Which page of a list: the admin API's lists are newest first, paged backwards by `before` (the id
/// after which the previous page stopped), unless `after` asks for entries newer than an id, oldest
/// first (the way a client reads on from where it stopped). Keyset paging: a page costs the same
/// however deep it is.
package enum Paging: Sendable, Equatable {
    /// Newest first, entries with id below `before` (all when nil).
    case newestFirst(before: Int64?)
    /// Oldest first, entries with id above `after`.
    case oldestFirst(after: Int64)

    /// The SQL that selects the page's ids of the table aliased `alias`, and the order to read them in.
    func clause(_ column: String) -> (condition: String, order: String, bound: Int64?) {
        switch self {
        case .newestFirst(let before): ("(? IS NULL OR \(column) < ?)", "\(column) DESC", before)
        case .oldestFirst(let after): ("(? IS NULL OR \(column) > ?)", "\(column)", after)
        }
    }
}
