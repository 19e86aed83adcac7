/// Read access to the store for domain code: the domain methods live in `Store+*.swift` extensions,
/// so SQL stays in this folder.
package struct StoreReader {
    let connection: SQLiteConnection
}

/// Read and write access inside the writer's transaction. Changes become visible, and the caller's
/// completion runs, only after the batch commits.
package struct StoreTransaction {
    let connection: SQLiteConnection

    /// Reads within the same transaction (sees this transaction's own writes).
    package var reader: StoreReader { StoreReader(connection: connection) }
}

@available(*, unavailable)
extension StoreReader: Sendable {}

@available(*, unavailable)
extension StoreTransaction: Sendable {}
