import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Serialises process launches (see ChildProcess.init).
private let launchLock = NSLock()

/// The folder of the local CA (`CAMPAIGN_MOCK_CAROOT`) every child process gets unless a test names its
/// own: one for the whole test run, so that no test makes or reads a CA in the user's home.
public let testCertificateAuthorityFolder: String = {
    let folder = NSTemporaryDirectory() + "campaign-mock-test-ca-\(getpid())"
    atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "campaign-mock-test-ca-\(getpid())") }
    return folder
}()

/// A child process with its standard output and error captured to files, for CLI tests.
public final class ChildProcess {
    private let process = Process()
    private let directory = TemporaryDirectory()
    private var outputPath: String { directory.path + "/stdout" }
    private var errorPath: String { directory.path + "/stderr" }

    /// Starts `executable` with `arguments` in `workingDirectory`, with `environment` added (and
    /// `CAMPAIGN_MOCK_CAROOT` set to ``testCertificateAuthorityFolder`` unless `environment` sets it).
    public init(
        _ executable: String, _ arguments: [String], workingDirectory: String? = nil,
        environment: [String: String] = [:]
    ) throws {
        _ = FileManager.default.createFile(atPath: directory.path + "/stdout", contents: nil)
        _ = FileManager.default.createFile(atPath: directory.path + "/stderr", contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        process.environment = ProcessInfo.processInfo.environment
            .merging(["CAMPAIGN_MOCK_CAROOT": testCertificateAuthorityFolder]) { $1 }.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path + "/stdout"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path + "/stderr"))
        // Foundation's Process.run is not safe to call from several threads at once on Linux (a
        // parallel test run crashed inside it), so launches take turns.
        launchLock.lock()
        defer { launchLock.unlock() }
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    public var pid: Int32 { process.processIdentifier }

    /// Sends `signal` to the child.
    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the child to exit; returns its exit code (128 + n when killed by signal n), or nil on timeout.
    public func waitForExit(timeoutSeconds: Double = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else { return nil }
        return process.terminationReason == .uncaughtSignal
            ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// Everything written to standard output so far.
    public var standardOutput: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    /// Everything written to standard error so far.
    public var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Waits until standard output contains `text`; returns the output, or nil on timeout or exit.
    public func waitForOutput(containing text: String, timeoutSeconds: Double = 10) -> String? {
        wait(for: text, in: { $0.standardOutput }, timeoutSeconds: timeoutSeconds)
    }

    /// Waits until standard error contains `text`; returns it, or nil on timeout or exit.
    public func waitForStandardError(containing text: String, timeoutSeconds: Double = 10) -> String? {
        wait(for: text, in: { $0.standardError }, timeoutSeconds: timeoutSeconds)
    }

    private func wait(for text: String, in stream: (ChildProcess) -> String, timeoutSeconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            let output = stream(self)
            if output.contains(text) { return output }
            if !process.isRunning { return nil }
            usleep(10_000)
        }
        return nil
    }
}

/// Runs a command to completion and returns its exit code and output.
public func runProcess(
    _ executable: String, _ arguments: [String], workingDirectory: String? = nil,
    environment: [String: String] = [:], timeoutSeconds: Double = 30
) throws -> (code: Int32, output: String, error: String) {
    let child = try ChildProcess(executable, arguments, workingDirectory: workingDirectory, environment: environment)
    guard let code = child.waitForExit(timeoutSeconds: timeoutSeconds) else {
        throw RawClientError("\(executable) \(arguments) did not exit within \(timeoutSeconds)s")
    }
    return (code, child.standardOutput, child.standardError)
}

/// The built `campaign-mock` binary: `CAMPAIGN_MOCK_BINARY`, or the one next to the test bundle.
public let campaignMockBinary: String = {
    if let path = ProcessInfo.processInfo.environment["CAMPAIGN_MOCK_BINARY"] { return path }
    #if canImport(Darwin)
        // macOS runs Swift Testing's tests inside a toolchain process that loads the bundle: the bundle is
        // found through a class of its own, not the process's arguments.
        let testBundle = Bundle(for: ChildProcess.self).bundleURL
    #else
        let testBundle =
            Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL
            ?? URL(fileURLWithPath: CommandLine.arguments[0])
    #endif
    return testBundle.deletingLastPathComponent().appendingPathComponent("campaign-mock").path
}()

/// The OpenSSL command-line tool the certificate tests ask: macOS's /usr/bin/openssl is LibreSSL, which
/// prints certificates otherwise and lacks options the tests use, so Homebrew's OpenSSL 3 comes first there.
public let opensslTool: String =
    ["/opt/homebrew/opt/openssl@3/bin/openssl", "/usr/local/opt/openssl@3/bin/openssl", "/usr/bin/openssl"]
    .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "openssl"
