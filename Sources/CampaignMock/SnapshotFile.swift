import CampaignMockHTTP
import CampaignMockSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A snapshot file read where the import asks (`serve --import`), as a request's spooled body is: the
/// import reads it twice, a piece at a time, so memory stays flat whatever its size.
final class SnapshotFile: ByteSource {
    private let descriptor: Int32
    let count: Int

    /// - Throws: ``SystemCallError`` when the file cannot be opened or is not a regular file.
    init(path: String) throws(SystemCallError) {
        // Non-blocking: a FIFO named here is refused below instead of holding the start.
        descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw SystemCallError(operation: "open", errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw SystemCallError(operation: "open (not a regular file)", errno: EINVAL)
        }
        count = Int(status.st_size)
    }

    deinit { close(descriptor) }

    func read(at offset: Int, length: Int) throws -> [UInt8] {
        let wanted = max(0, min(length, count - offset))
        var bytes = [UInt8](repeating: 0, count: wanted)
        var done = 0
        while done < wanted {
            let got = bytes.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + done, wanted - done, off_t(offset + done))
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw SystemCallError(operation: "pread", errno: got < 0 ? errno : EIO) }
            done += got
        }
        return bytes
    }
}
