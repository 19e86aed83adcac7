import Dispatch
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Puts a composed push on an iOS simulator (`xcrun simctl push`) or an Android emulator (`adb shell am
/// broadcast`) of this machine, and lists those that are running. Every tool runs with an argument
/// vector (``ToolProcess``), on a thread of its own, never on an event loop.
package struct DeviceRunner: Sendable {
    package let tools: DeviceTools
    /// How long a tool may run before it is stopped.
    let timeoutMilliseconds: Int
    /// Where `.apns` files are written, each in a folder of its own that only this user can read.
    let temporaryFolder: String
    private let queue = DispatchQueue(label: "campaign-mock.device-tools", attributes: .concurrent)
    /// The tools running now, which ``stopTools()`` stops.
    private let running = RunningTools()
    /// Most tools running at once; each holds a thread for up to the timeout.
    package let concurrentRuns: Int
    private let runs = RunCount()

    /// How many `perform` calls are under way.
    private final class RunCount: Sendable {
        let value = Atomic<Int>(0)
    }

    package init(tools: DeviceTools, timeoutMilliseconds: Int, temporaryFolder: String, concurrentRuns: Int = 2) {
        self.tools = tools
        self.timeoutMilliseconds = timeoutMilliseconds
        self.temporaryFolder = temporaryFolder
        self.concurrentRuns = concurrentRuns
    }

    /// Runs `work` off the event loops; it may wait for a tool and answer through a `ReplyChannel`.
    /// Returns false, running nothing, when ``concurrentRuns`` are under way: the caller answers at once
    /// instead of queueing behind runs that may take the whole timeout.
    package func perform(_ work: @escaping @Sendable () -> Void) -> Bool {
        let runs = runs
        guard runs.value.add(1, ordering: .acquiringAndReleasing).newValue <= concurrentRuns else {
            runs.value.subtract(1, ordering: .acquiringAndReleasing)
            return false
        }
        queue.async {
            defer { runs.value.subtract(1, ordering: .acquiringAndReleasing) }
            work()
        }
        return true
    }

    /// Stops the tools still running (each with everything it started) and starts no more: the server is
    /// stopping.
    package func stopTools() {
        running.stopAll()
    }

    // MARK: - iOS simulator

    /// Writes `file` (owner-only, in a fresh temporary folder, removed afterwards) and runs
    /// `xcrun simctl push DEVICE BUNDLE FILE`.
    package func pushToSimulator(xcrun: String, file: DevicePayload.SimulatorFile, device: String) -> ToolRun {
        let folder: String
        switch Self.makePrivateFolder(in: temporaryFolder) {
        case .success(let made): folder = made
        case .failure(let error): return .notRun("could not make a folder for the .apns file: \(error.message)")
        }
        defer { rmdir(folder) }
        let path = folder + "/" + file.name
        defer { unlink(path) }  // before the folder goes, even after a failed write
        if let error = Self.writePrivateFile(path, Array(file.text.utf8)) {
            return .notRun("could not write \(path): \(error.message)")
        }
        return ToolProcess.run(
            [xcrun, "simctl", "push", device, file.bundleID, path], timeoutMilliseconds: timeoutMilliseconds,
            in: running)
    }

    /// A simulator `xcrun simctl list devices booted -j` lists.
    package struct Simulator: Sendable, Codable, Equatable {
        package var udid: String
        package var name: String
        /// `com.apple.CoreSimulator.SimRuntime.iOS-18-2`.
        package var runtime: String
        package var state: String
    }

    /// The booted simulators, or the run that failed.
    package func bootedSimulators(xcrun: String) -> Result<[Simulator], ToolFailure> {
        var run = ToolProcess.run(
            [xcrun, "simctl", "list", "devices", "booted", "-j"], timeoutMilliseconds: timeoutMilliseconds, in: running)
        guard run.outcome == .succeeded else { return .failure(ToolFailure(run)) }
        struct Listing: Decodable {
            struct Device: Decodable {
                var udid: String
                var name: String
                var state: String
            }
            var devices: [String: [Device]]
        }
        guard let listing = try? JSONDecoder().decode(Listing.self, from: Data(run.stdout.utf8)) else {
            run.error = "simctl's list is not the JSON expected ({\"devices\": {RUNTIME: [{udid, name, state}]}})"
            return .failure(ToolFailure(run))
        }
        return .success(
            listing.devices.sorted { $0.key < $1.key }.flatMap { runtime, devices in
                devices.map { Simulator(udid: $0.udid, name: $0.name, runtime: runtime, state: $0.state) }
            })
    }

    // MARK: - Android emulator

    /// Runs `adb [-s SERIAL] shell COMMAND`. adb hands the device's shell one line, which it parses again:
    /// `remoteCommand` must quote every word that comes from a push (the composer's broadcast does).
    package func runOnEmulator(adb: String, serial: String?, remoteCommand: String) -> ToolRun {
        let target = serial.map { ["-s", $0] } ?? []
        return ToolProcess.run(
            [adb] + target + ["shell", remoteCommand], timeoutMilliseconds: timeoutMilliseconds, in: running)
    }

    /// An emulator or device `adb devices` lists.
    package struct Emulator: Sendable, Codable, Equatable {
        package var serial: String
        /// `device` when it takes commands; `offline`, `unauthorized`…
        package var state: String
    }

    /// What `adb devices` lists, or the run that failed.
    package func emulators(adb: String) -> Result<[Emulator], ToolFailure> {
        let run = ToolProcess.run([adb, "devices"], timeoutMilliseconds: timeoutMilliseconds, in: running)
        guard run.outcome == .succeeded else { return .failure(ToolFailure(run)) }
        // "List of devices attached", then "SERIAL<TAB>STATE" lines.
        return .success(
            run.stdout.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: "\t", omittingEmptySubsequences: true)
                guard fields.count == 2 else { return nil }
                return Emulator(
                    serial: String(fields[0]), state: String(fields[1].filter { $0 != " " && $0 != "\r" }))
            })
    }

    // MARK: - Files

    private struct FileError: Error {
        let message: String
        init(_ code: Int32) { message = String(cString: strerror(code)) }
    }

    /// `mkdtemp`: a new folder only this user can enter.
    private static func makePrivateFolder(in parent: String) -> Result<String, FileError> {
        var template = Array((parent + "/campaign-mock-simctl-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            return .failure(FileError(errno))
        }
        return .success(String(cString: made))
    }

    /// Creates `path` (it must not exist), mode 0600, with `bytes`.
    private static func writePrivateFile(_ path: String, _ bytes: [UInt8]) -> FileError? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return FileError(errno) }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return FileError(errno) }
            written += count
        }
        return nil
    }
}

/// A tool run that did not give what was asked, as an error.
package struct ToolFailure: Error {
    package let run: ToolRun
    package init(_ run: ToolRun) { self.run = run }
}

extension ToolRun {
    /// A run that never started: `reason` says why.
    static func notRun(_ reason: String) -> ToolRun {
        ToolRun(
            command: "", outcome: .notStarted, exitStatus: nil, stdout: "", stderr: "", outputTruncated: false,
            milliseconds: 0, error: reason)
    }
}
