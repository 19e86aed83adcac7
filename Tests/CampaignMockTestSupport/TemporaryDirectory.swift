import Foundation

/// A fresh directory under the system temp dir, removed with everything in it when released.
public final class TemporaryDirectory {
    public let path: String

    public init() {
        var template = Array("/tmp/campaign-mock-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
