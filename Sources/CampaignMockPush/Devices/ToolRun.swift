import CampaignMockModel

/// What running a device tool gave: the exact command, how it ended, and what it printed. The answer of
/// the endpoints that push to a simulator or an emulator, and, with `error`, of their failures.
package struct ToolRun: Sendable, Codable, Equatable {
    /// How the process ended.
    package enum Outcome: String, Sendable, ClosedSet {
        /// Exit status 0.
        case succeeded
        /// Another exit status, or killed by a signal.
        case failed
        /// Still running at the deadline: killed, with everything it started.
        case timedOut = "timed-out"
        /// It could not be started at all.
        case notStarted = "not-started"
    }

    /// The argument vector as one line, each argument quoted as a POSIX shell would need it (the process
    /// itself got the vector, no shell).
    package var command: String
    package var outcome: Outcome
    /// The exit status, when it exited (not when killed or never started).
    package var exitStatus: Int32?
    /// What it printed, each cut at ``ToolProcess/outputLimit`` bytes (`outputTruncated` then).
    package var stdout: String
    package var stderr: String
    package var outputTruncated: Bool
    package var milliseconds: Int
    /// Why this run counts as a failure; nil when it succeeded.
    package var error: String?

    package init(
        command: String, outcome: Outcome, exitStatus: Int32?, stdout: String, stderr: String,
        outputTruncated: Bool, milliseconds: Int, error: String? = nil
    ) {
        self.command = command
        self.outcome = outcome
        self.exitStatus = exitStatus
        self.stdout = stdout
        self.stderr = stderr
        self.outputTruncated = outputTruncated
        self.milliseconds = milliseconds
        self.error = error
    }

}
