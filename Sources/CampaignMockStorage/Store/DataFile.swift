import CampaignMockSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading a file of the data directory safely: never through a link (`lstat`, then `O_NOFOLLOW`), and
/// only a regular file this user owns (`fstat` of the open descriptor); a file that is not what it
/// should be is moved aside (`<file>.damaged-<time>`), never truncated nor deleted.
enum DataFile {
    /// The whole file at `path`, or nil when there is none.
    ///
    /// - Throws: ``StoreError/unsafeFile(path:reason:)`` for a link, a file that is not a regular file or
    ///   is another user's, or one that cannot be read.
    static func readIfPresent(_ path: String) throws(StoreError) -> [UInt8]? {
        var status = stat()
        if lstat(path, &status) != 0 {
            if errno == ENOENT { return nil }
            throw .unsafeFile(path: path, reason: String(cString: strerror(errno)))
        }
        if status.st_mode & S_IFMT == S_IFLNK {
            throw .unsafeFile(path: path, reason: "it is a symbolic link; a data directory's files are never followed")
        }
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unsafeFile(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0 else {
            throw .unsafeFile(path: path, reason: String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw .unsafeFile(path: path, reason: "it is not a regular file")
        }
        guard status.st_uid == geteuid() else {
            throw .unsafeFile(path: path, reason: "it belongs to uid \(status.st_uid), not to this user (\(geteuid()))")
        }
        guard let bytes = FileBytes.read(descriptor, offset: 0, count: Int(status.st_size)) else {
            throw .unsafeFile(path: path, reason: "cannot read it: \(String(cString: strerror(errno)))")
        }
        return bytes
    }

    /// ``FileBytes/moveAside(_:)``, said for a log line: where the file went, or why it stayed.
    static func moveAsideSaying(_ path: String) -> String {
        guard let kept = FileBytes.moveAside(path) else {
            return "it could not be moved aside (\(String(cString: strerror(errno)))) and stays as it is"
        }
        return "the file is kept as \(kept)"
    }
}
