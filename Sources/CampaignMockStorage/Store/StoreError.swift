/// Why the store refused or failed an operation, in words a user can act on.
package enum StoreError: Error, Equatable, CustomStringConvertible {
    /// The database has a migration this version does not know: it was written by a newer campaign-mock.
    case newerSchema(migration: String)
    /// The data directory is marked with a format this build does not know: a newer campaign-mock wrote it.
    case newerFormat(found: Int64, known: Int64)
    /// The store was closed (the server is shutting down).
    case closed
    /// Another process holds the data directory.
    case dataDirectoryInUse(path: String)
    /// The data directory cannot be created or written.
    case dataDirectoryUnusable(path: String, reason: String)
    /// A file in the data directory is not one the server may read or write (a link, another user's).
    case unsafeFile(path: String, reason: String)

    package var description: String {
        switch self {
        case .newerSchema(let migration):
            return "the database was written by a newer campaign-mock (unknown migration '\(migration)'); "
                + "upgrade campaign-mock or use another --data-dir"
        case .newerFormat(let found, let known):
            return "the data directory is in format \(found), written by a newer campaign-mock (this one knows "
                + "formats up to \(known)); upgrade campaign-mock or use another --data-dir"
        case .closed:
            return "the store is closed"
        case .dataDirectoryInUse(let path):
            return "another campaign-mock is using the data directory \(path); stop it or use another --data-dir"
        case .dataDirectoryUnusable(let path, let reason):
            return "cannot use the data directory \(path): \(reason)"
        case .unsafeFile(let path, let reason):
            return "refusing \(path): \(reason); move it away (or use another --data-dir)"
        }
    }
}
