import CampaignMockTestSupport
import Foundation
import Testing

@testable import CampaignMockSupport

/// Reading and emptying a folder of the real file system (the fuzz targets' scratch folder, a recording's
/// exchange files).
@Suite struct FileBytesTests {
    @Test func aFolderListsItsFilesAndFoldersButNotItself() throws {
        let directory = TemporaryDirectory()
        for name in ["b.json", "a.txt", ".hidden"] {
            #expect(FileBytes.writeAtomically(Array(name.utf8), to: directory.path + "/" + name))
        }
        #expect(FileBytes.makeDirectories(directory.path + "/sub") == nil)
        #expect(FileBytes.names(in: directory.path).sorted() == [".hidden", "a.txt", "b.json", "sub"])
        #expect(FileBytes.names(in: directory.path + "/missing").isEmpty)
    }

    @Test func removingAFoldersFilesKeepsItsFolders() throws {
        let directory = TemporaryDirectory()
        for name in ["one", "two"] { #expect(FileBytes.writeAtomically([1], to: directory.path + "/" + name)) }
        #expect(FileBytes.makeDirectories(directory.path + "/kept") == nil)
        #expect(FileBytes.writeAtomically([2], to: directory.path + "/kept/inside"))
        FileBytes.removeFiles(in: directory.path)
        #expect(FileBytes.names(in: directory.path) == ["kept"])
        #expect(FileBytes.names(in: directory.path + "/kept") == ["inside"])
    }
}
