import CampaignMockJournal

/// Read access to the store for domain code: the domain methods live in `Store+*.swift` extensions,
/// so SQL stays in this folder.
package struct StoreReader {
    package let connection: SQLiteConnection
    let journal: JournalLog
}

/// Read and write access inside the writer's transaction. Changes become visible, and the caller's
/// completion runs, only after the batch commits.
package struct StoreTransaction {
    package let connection: SQLiteConnection
    let journal: JournalLog
    /// Whether a registration notes its device's row for the sink too (``ChangeSink/wantsDeviceRows``).
    var recordsDeviceRows = true

    /// Reads within the same transaction (sees this transaction's own SQLite writes; journal entries
    /// appear after the commit).
    package var reader: StoreReader { StoreReader(connection: connection, journal: journal) }
}

@available(*, unavailable)
extension StoreReader: Sendable {}

@available(*, unavailable)
extension StoreTransaction: Sendable {}
