import CampaignMockTestSupport
import Foundation
import Testing

@testable import CampaignMockStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The data directory's files cannot be turned by a link, another user or a deleted lock file: each case
/// as a cloned repository with a committed `.campaign-mock/` would bring it.
@Suite("Data directory safety")
struct DataDirectoryTests {
    private static func mode(_ path: String) -> mode_t {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o777 : 0
    }

    private static func refusedAsUnsafe(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as StoreError {
            guard case .unsafeFile(let path, _) = error else { return "other: \(error)" }
            return path
        } catch {
            return "other: \(error)"
        }
    }

    @Test func aKnownFileThatIsALinkIsRefusedAndItsTargetLeftAsItWas() throws {
        let directory = TemporaryDirectory()
        let elsewhere = TemporaryDirectory()
        let data = directory.path + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        chmod(data, 0o700)
        let target = elsewhere.path + "/notes.txt"
        try Data("mine".utf8).write(to: URL(fileURLWithPath: target))
        chmod(target, 0o644)
        try FileManager.default.createSymbolicLink(
            atPath: data + "/campaign-mock.sqlite3-requests.old", withDestinationPath: target)
        #expect(
            Self.refusedAsUnsafe { _ = try DataDirectory(path: data) } == data + "/campaign-mock.sqlite3-requests.old")
        #expect(Self.mode(target) == 0o644)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "mine")
    }

    @Test func aDanglingLockLinkIsRefusedAndItsTargetNotCreated() throws {
        let directory = TemporaryDirectory()
        let elsewhere = TemporaryDirectory()
        let data = directory.path + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        chmod(data, 0o700)
        try FileManager.default.createSymbolicLink(
            atPath: data + "/campaign-mock.lock", withDestinationPath: elsewhere.path + "/created")
        #expect(Self.refusedAsUnsafe { _ = try DataDirectory(path: data) } == data + "/campaign-mock.lock")
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path + "/created"))
    }

    @Test func aDeletedLockFileDoesNotLetASecondServerIn() throws {
        let directory = TemporaryDirectory()
        let data = directory.path + "/data"
        let first = try DataDirectory(path: data)
        defer { first.release() }
        unlink(data + "/campaign-mock.lock")
        #expect(throws: StoreError.dataDirectoryInUse(path: data)) { _ = try DataDirectory(path: data) }
    }

    @Test func aDirectoryGroupOrOthersMayWriteIsRefusedSayingWhy() throws {
        let directory = TemporaryDirectory()
        let data = directory.path + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        chmod(data, 0o777)
        let error = #expect(throws: StoreError.self) { _ = try DataDirectory(path: data) }
        #expect(error?.description.contains("group or others may write to it (mode 777)") == true)
        chmod(data, 0o755)
        try DataDirectory(path: data).release()
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give the directory to another user"))
    func aDirectoryOfAnotherUserIsRefusedSayingWhy() throws {
        let directory = TemporaryDirectory()
        let data = directory.path + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        chmod(data, 0o700)
        chown(data, 65532, 65532)
        let error = #expect(throws: StoreError.self) { _ = try DataDirectory(path: data) }
        #expect(error?.description.contains("it belongs to uid 65532") == true)
    }

    @Test func theServersFilesAreMadeOwnerOnlyThroughTheirDescriptor() throws {
        let directory = TemporaryDirectory()
        let data = directory.path + "/data"
        try DataDirectory(path: data).release()
        chmod(data + "/campaign-mock.sqlite3", 0o644)
        try DataDirectory(path: data).release()
        #expect(Self.mode(data + "/campaign-mock.sqlite3") == 0o600)
        #expect(Self.mode(data + "/campaign-mock.lock") == 0o600)
    }

    /// A folder on the way to the data directory may be a link (a home folder, macOS's `/tmp`): the store is
    /// opened through the resolved path, since SQLite's no-follow open refuses a link anywhere in a path.
    @Test func aDataDirectoryUnderALinkedFolderStartsAndKeepsItsFilesWhereTheLinkLeads() throws {
        let real = TemporaryDirectory()
        let links = TemporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: links.path + "/linked", withDestinationPath: real.path)
        let directory = try DataDirectory(path: links.path + "/linked/data")
        let store = try Store(path: directory.databasePath)
        store.close()
        directory.release()
        #expect(FileManager.default.fileExists(atPath: real.path + "/data/campaign-mock.sqlite3"))
        // The path as given is what the messages name.
        #expect(directory.path == links.path + "/linked/data")
    }
}
