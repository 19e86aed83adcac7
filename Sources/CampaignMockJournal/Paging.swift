/// Which page of a list: the admin API's lists are newest first, paged backwards by `before` (the id
/// after which the previous page stopped), unless `after` asks for entries newer than an id, oldest
/// first (the way a client reads on from where it stopped); with both, the entries between the two, oldest
/// first. Keyset paging: a page costs the same however deep it is. Declared with the journal, whose pages
/// are read from its index by it; the store's lists turn it into SQL (`Paging+SQL.swift`).
package enum Paging: Sendable, Equatable {
    /// Newest first, entries with id below `before` (all when nil).
    case newestFirst(before: Int64?)
    /// Oldest first, entries with id above `after` (and below `before`, when given).
    case oldestFirst(after: Int64, before: Int64? = nil)

    /// Whether `id` is on this side of the cursors.
    func admits(_ id: Int64) -> Bool {
        switch self {
        case .newestFirst(let before): before.map { id < $0 } ?? true
        case .oldestFirst(let after, let before): id > after && (before.map { id < $0 } ?? true)
        }
    }
}
