import CampaignMockSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The data directory, created if needed and locked for this process, so two servers never write one
/// database: `flock` on the directory itself, which cannot be deleted while it holds files, and on
/// `campaign-mock.lock` (what older builds lock).
///
/// What it holds is what clients sent (SOAP passwords and session tokens among it), so it is for its
/// owner only: a new directory is made 0700; a directory another user owns, or one that group or others
/// may write to, is refused, saying why. The server's files in it are 0600 (`fchmod` of their open
/// descriptor; SQLite gives its `-wal` and `-shm` files the database file's mode). None is followed if
/// it is a link (`O_NOFOLLOW`, `SQLITE_OPEN_NOFOLLOW`): a known name that is a link, or that is not a
/// regular file of this user's, stops the start.
package final class DataDirectory: Sendable {
    /// The server's files in the directory.
    static let files = [
        "campaign-mock.sqlite3", "campaign-mock.sqlite3-wal", "campaign-mock.sqlite3-shm",
        "campaign-mock.sqlite3-requests", "campaign-mock.sqlite3-requests.old", "campaign-mock.sqlite3-redo",
        "campaign-mock.lock",
    ]

    /// The directory as given.
    package let path: String
    /// The directory with every link on its way resolved, which the store's files are opened through: SQLite
    /// opens them with `SQLITE_OPEN_NOFOLLOW`, which refuses a link anywhere in the path (a home folder that
    /// is a link, macOS's `/tmp`), while a link in the directory itself is refused by name (``openFile``).
    package let resolvedPath: String
    /// The database file, through ``resolvedPath``.
    package var databasePath: String { resolvedPath + "/" + Self.files[0] }
    /// The open directory and lock file, both locked; empty once released.
    private let lockDescriptors: Mutex<[Int32]>

    /// - Throws: ``StoreError`` when the directory cannot be made, is not safe, or another process holds it;
    ///   ``StoreError/unsafeFile(path:reason:)`` for a known file that is a link or not this user's.
    package init(path: String) throws(StoreError) {
        self.path = path
        let existed = access(path, F_OK) == 0
        try Self.makeDirectories(path)
        // A directory this server made (`.campaign-mock/` in an app's repository) keeps itself out of git, as
        // Python's venv does; one that existed is the user's to manage.
        if !existed { Self.writeGitignore(path) }
        guard let resolved = realpath(path, nil) else {
            throw StoreError.dataDirectoryUnusable(path: path, reason: String(cString: strerror(errno)))
        }
        resolvedPath = String(cString: resolved)
        free(resolved)
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else {
            throw StoreError.dataDirectoryUnusable(path: path, reason: String(cString: strerror(errno)))
        }
        var descriptors = [directory]
        do throws(StoreError) {
            try Self.checkOwnedAndPrivate(directory, path: path)
            try Self.lock(directory, path)
            let lock = try Self.openFile(path + "/campaign-mock.lock", create: true)
            descriptors.append(lock)
            try Self.lock(lock, path)
            // Made before SQLite opens it, so that it (and the files SQLite makes beside it) is owner-only.
            close(try Self.openFile(path + "/" + Self.files[0], create: true))
            for file in Self.files.dropFirst() where file != "campaign-mock.lock" {
                let descriptor = try Self.openFile(path + "/" + file, create: false)
                if descriptor >= 0 { close(descriptor) }
            }
        } catch {
            for descriptor in descriptors { close(descriptor) }
            throw error
        }
        lockDescriptors = Mutex(descriptors)
    }

    deinit {
        release()
    }

    /// Gives the directory up (at shutdown), so another server may use it at once.
    package func release() {
        lockDescriptors.withLock { descriptors in
            for descriptor in descriptors { close(descriptor) }
            descriptors = []
        }
    }

    /// Refuses a directory this user does not own, or one that group or others may write to: another user
    /// could then put files (or links) in it for the server to read.
    private static func checkOwnedAndPrivate(_ directory: Int32, path: String) throws(StoreError) {
        var status = stat()
        guard fstat(directory, &status) == 0 else {
            throw .dataDirectoryUnusable(path: path, reason: String(cString: strerror(errno)))
        }
        if status.st_uid != geteuid() {
            throw .dataDirectoryUnusable(
                path: path,
                reason: "it belongs to uid \(status.st_uid), not to this user (uid \(geteuid())); run the server "
                    + "as its owner, or chown it (the Docker image runs as uid 65532: docs/configuration.md)")
        }
        if status.st_mode & 0o022 != 0 {
            throw .dataDirectoryUnusable(
                path: path,
                reason: "group or others may write to it (mode \(String(status.st_mode & 0o777, radix: 8))); "
                    + "chmod go-w it")
        }
    }

    /// Opens a known file of the directory without following a link (created, exclusively, when missing
    /// and `create`), checks it is a regular file of this user's, and makes it 0600 through the descriptor.
    /// Returns -1 for a missing file not to be created.
    private static func openFile(_ path: String, create: Bool) throws(StoreError) -> Int32 {
        var descriptor = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if descriptor < 0 && errno == ENOENT && create {
            descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        if descriptor < 0 {
            if errno == ENOENT && !create { return -1 }
            let reason =
                errno == ELOOP
                ? "it is a symbolic link; a data directory's files are never followed"
                : String(cString: strerror(errno))
            throw .unsafeFile(path: path, reason: reason)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid() else {
            close(descriptor)
            throw .unsafeFile(path: path, reason: "it is not a regular file of this user's")
        }
        if status.st_mode & 0o777 != 0o600 { _ = fchmod(descriptor, 0o600) }
        return descriptor
    }

    /// The directory as an absolute path, for messages.
    package var absolutePath: String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return cwd + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    /// Takes the lock on `descriptor`: held by another process is "in use"; a file system that has no such
    /// locks (some network shares) is said as it is.
    private static func lock(_ descriptor: Int32, _ path: String) throws(StoreError) {
        guard flock(descriptor, LOCK_EX | LOCK_NB) != 0 else { return }
        guard errno == EWOULDBLOCK else {
            throw StoreError.dataDirectoryUnusable(
                path: path, reason: "cannot lock it: " + String(cString: strerror(errno)))
        }
        throw StoreError.dataDirectoryInUse(path: path)
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
