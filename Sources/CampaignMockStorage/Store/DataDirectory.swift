import CampaignMockSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The data directory, created if needed and locked for this process (`campaign-mock.lock`), so two
/// servers never write one database.
///
/// What it holds is what clients sent (SOAP passwords and session tokens among it), so it is for its
/// owner only: a new directory is made 0700, and the server's files in it are 0600 (existing ones made
/// so at start; SQLite gives its `-wal` and `-shm` files the database file's mode).
package final class DataDirectory: Sendable {
    /// The server's files in the directory.
    static let files = [
        "campaign-mock.sqlite3", "campaign-mock.sqlite3-wal", "campaign-mock.sqlite3-shm",
        "campaign-mock.sqlite3-requests", "campaign-mock.sqlite3-requests.old", "campaign-mock.sqlite3-redo",
        "campaign-mock.lock",
    ]

    /// The directory as given.
    package let path: String
    /// The open lock file; -1 once released.
    private let lockDescriptor: Mutex<Int32>

    /// - Throws: ``StoreError`` when the directory cannot be made or another process holds it.
    package init(path: String) throws(StoreError) {
        self.path = path
        let existed = access(path, F_OK) == 0
        try Self.makeDirectories(path)
        // A directory this server made (`.campaign-mock/` in an app's repository) keeps itself out of git, as
        // Python's venv does; one that existed is the user's to manage.
        if !existed { Self.writeGitignore(path) }
        let lockPath = path + "/campaign-mock.lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError.dataDirectoryUnusable(path: path, reason: String(cString: strerror(errno)))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw StoreError.dataDirectoryInUse(path: path)
        }
        lockDescriptor = Mutex(descriptor)
        // Made before SQLite opens it, so that it (and the files SQLite makes beside it) is owner-only.
        let database = open(path + "/" + Self.files[0], O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if database >= 0 { close(database) }
        for file in Self.files { _ = chmod(path + "/" + file, 0o600) }
    }

    deinit {
        release()
    }

    /// Gives the directory up (at shutdown), so another server may use it at once.
    package func release() {
        lockDescriptor.withLock { descriptor in
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }
    }

    /// The directory as an absolute path, for messages.
    package var absolutePath: String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return cwd + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    /// `.gitignore` holding `*`: git leaves the directory and everything in it alone.
    private static func writeGitignore(_ path: String) {
        let descriptor = open(path + "/.gitignore", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        let text = Array("# Made by campaign-mock with this directory: its store stays out of git.\n*\n".utf8)
        _ = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    private static func makeDirectories(_ path: String) throws(StoreError) {
        if let failure = FileBytes.makeDirectories(path, mode: 0o700) {
            throw StoreError.dataDirectoryUnusable(path: path, reason: failure)
        }
    }
}
