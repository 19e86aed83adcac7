import CampaignMockSupport
import CampaignMockSystem

#if canImport(Glibc)
    import CLinux
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs a program with an argument vector, never through a shell: its output captured, stopped (with
/// everything it started) at a deadline or when the server stops (``RunningTools``). It blocks the calling
/// thread until then, so callers run it off the event loops (``DeviceRunner``).
///
/// The tool inherits only the descriptors it is given (stdin from /dev/null, its stdout and stderr pipes)
/// and an allow-listed environment (``environment(from:)``): not the server's sockets, files or secrets.
package enum ToolProcess {
    /// Bytes of each output stream kept; the rest is read and dropped.
    static let outputLimit = 64 * 1024

    /// Whether `path` is a regular file this user may run.
    static func isExecutable(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }

    /// Runs `arguments[0]` (a path) with `arguments`, standard input empty, as one of `running`.
    package static func run(_ arguments: [String], timeoutMilliseconds: Int, in running: RunningTools) -> ToolRun {
        let started = Clock.monotonicNanoseconds()
        let deadline = started + UInt64(max(timeoutMilliseconds, 0)) * 1_000_000
        var run = ToolRun(
            command: ShellWords.line(arguments), outcome: .notStarted, exitStatus: nil, stdout: "", stderr: "",
            outputTruncated: false, milliseconds: 0)
        defer { run.milliseconds = Int((Clock.monotonicNanoseconds() - started) / 1_000_000) }
        let child: Child
        let environment = environment(from: ProcessInfo.processInfo.environment)
        switch running.start({ spawn(arguments, environment: environment) }) {
        case .success(let spawned): child = spawned
        case .failure(let error):
            run.error = "could not start \(arguments.first ?? ""): \(error.message)"
            return run
        }
        var output = Capture()
        var errors = Capture()
        let finished = drain(child.output, into: &output, child.errors, into: &errors, until: deadline)
        let status = finished ? wait(for: child.pid, until: deadline) : nil
        if status == nil {
            kill(-child.pid, SIGKILL)  // its process group: the tool and whatever it started
            _ = wait(for: child.pid, until: nil)
        }
        let stoppedAtShutdown = running.finish(child.pid)
        close(child.output)
        close(child.errors)
        run.stdout = output.text
        run.stderr = errors.text
        run.outputTruncated = output.truncated || errors.truncated
        let name = arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? ""
        switch status {
        case _ where stoppedAtShutdown:
            run.outcome = .failed
            run.error = "\(name) was stopped: the server is shutting down"
        case nil:
            run.outcome = .timedOut
            run.error = "\(name) was still running after \(Self.seconds(timeoutMilliseconds)) and was stopped"
        case .exited(0)?:
            run.outcome = .succeeded
            run.exitStatus = 0
        case .exited(let code)?:
            run.outcome = .failed
            run.exitStatus = code
            run.error = "\(name) exited with status \(code)"
        case .signaled(let signal)?:
            run.outcome = .failed
            run.error = "\(name) was killed by signal \(signal)"
        }
        return run
    }

    private static func seconds(_ milliseconds: Int) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    // MARK: - Spawning

    struct SpawnError: Error {
        let message: String
        init(_ code: Int32) { message = String(cString: strerror(code)) }
        init(_ message: String) { self.message = message }
    }

    /// A started tool: its pid (and process group) and the reading ends of its stdout and stderr pipes.
    typealias Child = (pid: pid_t, output: Int32, errors: Int32)

    /// Starts the child in a process group of its own, with the default signal dispositions and an empty
    /// signal mask (the server ignores SIGPIPE; a tool should not), stdin from /dev/null, its stdout and
    /// stderr into pipes, no other descriptor, and `environment`; returns the pipes' reading ends.
    private static func spawn(_ arguments: [String], environment: [String]) -> Result<Child, SpawnError> {
        let output: (read: Int32, write: Int32)
        let errors: (read: Int32, write: Int32)
        do throws(SystemCallError) {
            output = try closeOnExecPipe()
            do throws(SystemCallError) {
                errors = try closeOnExecPipe()
            } catch {
                close(output.read)
                close(output.write)
                throw error
            }
        } catch {
            return .failure(SpawnError(error.errno))
        }
        defer {
            close(output.write)
            close(errors.write)
        }

        #if canImport(Glibc)
            var files = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #else
            var files: posix_spawn_file_actions_t?
            var attributes: posix_spawnattr_t?
        #endif
        posix_spawn_file_actions_init(&files)
        defer { posix_spawn_file_actions_destroy(&files) }
        posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&files, output.write, 1)
        posix_spawn_file_actions_adddup2(&files, errors.write, 2)
        #if canImport(Glibc)
            // Every other descriptor is closed in the child, close-on-exec or not: one the server inherited
            // or a library opened without the flag does not reach the tool, nor an adb server it starts,
            // which lives on.
            CLinux_posix_spawn_file_actions_addclosefrom_np(&files, 3)
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setpgroup(&attributes, 0)
        var flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        #if canImport(Darwin)
            // Only the descriptors named above reach the tool: Darwin makes sockets without
            // close-on-exec (it has no accept4 or SOCK_CLOEXEC), and an adb server it starts lives on.
            flags |= POSIX_SPAWN_CLOEXEC_DEFAULT
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let variables = environment.map { strdup($0) } + [nil]
        defer { for variable in variables { free(variable) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, arguments[0], &files, &attributes, argv, variables)
        guard result == 0 else {
            close(output.read)
            close(errors.read)
            return .failure(SpawnError(result))
        }
        return .success((pid, output.read, errors.read))
    }

    /// What a tool gets of the server's environment, by name: the search path (its absolute folders only:
    /// `.`, an empty entry or `bin` would name the folder the server runs in), the home and temporary
    /// folders, the locale, and the variables xcrun and adb read (``passedToTools``). Nothing else: not
    /// the admin token, the SOAP passwords or the provider keys, nor an `ANDROID_KEYSTORE_PASSWORD`, which
    /// adb's server, living on after the mock, would keep too.
    static func environment(from variables: [String: String]) -> [String] {
        variables.compactMap { name, value -> String? in
            guard passedToTools.contains(name) else { return nil }
            guard name == "PATH" else { return "\(name)=\(value)" }
            return "PATH=" + value.split(separator: ":").filter { $0.hasPrefix("/") }.joined(separator: ":")
        }.sorted()
    }

    /// xcrun and simctl read `DEVELOPER_DIR`, `TOOLCHAINS` and `SDKROOT`; adb reads its server's address and
    /// port, the device to use, its keys, its tracing and transport switches, and where the SDK and the
    /// user's Android folder are.
    static let passedToTools: Set = [
        "PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
        "DEVELOPER_DIR", "TOOLCHAINS", "SDKROOT",
        "ANDROID_HOME", "ANDROID_SDK_ROOT", "ANDROID_SDK_HOME", "ANDROID_USER_HOME", "ANDROID_SERIAL",
        "ANDROID_ADB_SERVER_ADDRESS", "ANDROID_ADB_SERVER_PORT", "ADB_SERVER_SOCKET", "ADB_VENDOR_KEYS",
        "ADB_TRACE", "ADB_LIBUSB", "ADB_MDNS_AUTO_CONNECT", "ADB_MDNS_OPENSCREEN", "ADB_LOCAL_TRANSPORT_MAX_PORT",
    ]

    // MARK: - Output and exit

    /// One output stream, cut at ``outputLimit``.
    private struct Capture {
        var bytes: [UInt8] = []
        var truncated = false
        var open = true

        mutating func append(_ chunk: UnsafeRawBufferPointer) {
            let room = max(0, ToolProcess.outputLimit - bytes.count)
            bytes.append(contentsOf: chunk.prefix(room))
            truncated = truncated || chunk.count > room
        }

        var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// Reads both streams until both end (true) or the deadline passes (false).
    private static func drain(
        _ output: Int32, into outputCapture: inout Capture, _ errors: Int32, into errorCapture: inout Capture,
        until deadline: UInt64
    ) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while outputCapture.open || errorCapture.open {
            let now = Clock.monotonicNanoseconds()
            guard now < deadline else { return false }
            var descriptors = [
                pollfd(fd: outputCapture.open ? output : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: errorCapture.open ? errors : -1, events: Int16(POLLIN), revents: 0),
            ]
            let waitMilliseconds = Int32(min((deadline - now) / 1_000_000 + 1, 1000))
            guard poll(&descriptors, 2, waitMilliseconds) >= 0 || errno == EINTR else { return false }
            for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(descriptor.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    buffer.withUnsafeBytes { bytes in
                        let chunk = UnsafeRawBufferPointer(rebasing: bytes[..<count])
                        if index == 0 { outputCapture.append(chunk) } else { errorCapture.append(chunk) }
                    }
                } else if count == 0 || errno != EINTR {
                    if index == 0 { outputCapture.open = false } else { errorCapture.open = false }
                }
            }
        }
        return true
    }

    /// How a child ended.
    private enum Status {
        case exited(Int32)
        case signaled(Int32)
    }

    /// Waits for the child to end, until `deadline` (nil: however long it takes); nil when it has not.
    private static func wait(for pid: pid_t, until deadline: UInt64?) -> Status? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, deadline == nil ? 0 : WNOHANG)
            if result == pid { break }
            if result < 0 && errno != EINTR { return .exited(-1) }
            if let deadline, Clock.monotonicNanoseconds() >= deadline { return nil }
            if result == 0 { usleep(2000) }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }
}
