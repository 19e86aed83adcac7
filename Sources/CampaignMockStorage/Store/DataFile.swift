import CampaignMockSystem

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
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var got = 0
        while got < bytes.count {
            let count = bytes.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + got, $0.count - got, off_t(got))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw .unsafeFile(path: path, reason: "cannot read it: \(String(cString: strerror(errno)))")
            }
            got += count
        }
        return bytes
    }

    /// Renames `path` to `<path>.damaged-<time>`; says where it went, or why it stayed, for a log line.
    static func moveAside(_ path: String) -> String {
        let stamp = RFC3339.string(microsecondsSince1970: Clock.wallClockMicroseconds())
            .filter { $0.isNumber || $0 == "T" }
        let kept = path + ".damaged-" + stamp
        guard rename(path, kept) == 0 else {
            return "it could not be moved aside (\(String(cString: strerror(errno)))) and stays as it is"
        }
        return "the file is kept as \(kept)"
    }
}
