import CampaignMockSystem

#if canImport(Glibc)
    package import Glibc
#elseif canImport(Darwin)
    package import Darwin
#endif

/// File reads and writes without Foundation.
package enum FileBytes {
    /// The file's bytes, or nil when it cannot be read.
    package static func read(_ path: String) -> [UInt8]? {
        guard let file = stream(path, O_RDONLY, 0, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while case let count = fread(&chunk, 1, chunk.count, file), count > 0 { bytes += chunk[0..<count] }
        return ferror(file) == 0 ? bytes : nil
    }

    /// Writes `bytes` to a temporary file next to `path`, then renames it over `path`, so readers see
    /// the old file or the whole new one; `ownerOnly` makes it readable by the owner only (secrets).
    /// False (and errno set) on failure.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, ownerOnly: Bool = false) -> Bool {
        let temporary = path + ".partial"
        guard let file = stream(temporary, O_WRONLY | O_CREAT | O_TRUNC, ownerOnly ? 0o600 : 0o666, "wb") else {
            return false
        }
        if ownerOnly { fchmod(fileno(file), 0o600) }  // a leftover .partial keeps its mode through open
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file) == 0
        guard written == bytes.count && closed && rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    /// A stdio stream on `path`, opened close-on-exec so no child process inherits it. `fopen`'s `e` flag
    /// would say the same, but Darwin's `fopen` ignores it.
    private static func stream(_ path: String, _ flags: Int32, _ permissions: mode_t, _ mode: String)
        -> UnsafeMutablePointer<FILE>?
    {
        let descriptor = open(path, flags | O_CLOEXEC, permissions)
        guard descriptor >= 0 else { return nil }
        guard let file = fdopen(descriptor, mode) else {
            let failure = errno
            close(descriptor)
            errno = failure
            return nil
        }
        return file
    }

    /// Creates `path` (with `mode`) and its missing parents (0755). Nil on success, else why it failed.
    package static func makeDirectories(_ path: String, mode: mode_t = 0o755) -> String? {
        var current = path.hasPrefix("/") ? "/" : ""
        let components = path.split(separator: "/")
        for (index, component) in components.enumerated() {
            current += component + "/"
            if mkdir(current, index == components.count - 1 ? mode : 0o755) != 0 && errno != EEXIST {
                return "cannot create \(current): \(String(cString: strerror(errno)))"
            }
        }
        return nil
    }

    /// `count` bytes of `descriptor` from `offset` (`pread`, again after `EINTR`); nil, with `errno` set, when
    /// they cannot all be read.
    package static func read(_ descriptor: Int32, offset: Int, count: Int) -> [UInt8]? {
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            while initialized < count {
                let got = pread(
                    descriptor, buffer.baseAddress! + initialized, count - initialized, off_t(offset + initialized))
                if got < 0 && errno == EINTR { continue }
                if got <= 0 {
                    failed = true
                    return
                }
                initialized += got
            }
        }
        return failed ? nil : bytes
    }

    /// The names in `folder` (files and folders, without `.` and `..`), in the order the file system gives
    /// them; empty when it cannot be read.
    package static func names(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Deletes the files in `folder` (not its subfolders).
    package static func removeFiles(in folder: String) {
        for name in names(in: folder) { unlink(folder + "/" + name) }
    }

    /// Renames `path` to `<path>.damaged-<time>`; returns the new name, or nil (with `errno` set) when it stays.
    package static func moveAside(_ path: String) -> String? {
        let stamp = RFC3339.string(microsecondsSince1970: Clock.wallClockMicroseconds())
            .filter { $0.isNumber || $0 == "T" }
        let kept = path + ".damaged-" + stamp
        return rename(path, kept) == 0 ? kept : nil
    }
}
