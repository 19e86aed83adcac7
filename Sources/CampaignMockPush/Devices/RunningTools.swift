import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tools a server is running, by process group, so that it stops them when it stops: a tool is not left
/// running (a stalled `adb` waiting for a device, everything it started) once the server has exited.
package final class RunningTools: Sendable {
    private struct State {
        /// The running tools' pids, each its own process group's id.
        var groups: Set<pid_t> = []
        /// Those killed by ``stopAll()``, until their run has seen them end.
        var stopped: Set<pid_t> = []
        var stopping = false
    }

    private let state = Mutex(State())

    package init() {}

    /// Starts a tool with `spawn`, unless the server is stopping. The two happen under the lock, so a tool
    /// started while ``stopAll()`` runs is either stopped by it or never started.
    func start(_ spawn: () -> Result<ToolProcess.Child, ToolProcess.SpawnError>)
        -> Result<ToolProcess.Child, ToolProcess.SpawnError>
    {
        state.withLock { state in
            guard !state.stopping else { return .failure(ToolProcess.SpawnError("the server is shutting down")) }
            let started = spawn()
            if case .success(let child) = started { state.groups.insert(child.pid) }
            return started
        }
    }

    /// The tool `pid` has ended and been waited for; true when ``stopAll()`` killed it.
    func finish(_ pid: pid_t) -> Bool {
        state.withLock { state in
            state.groups.remove(pid)
            return state.stopped.remove(pid) != nil
        }
    }

    /// Kills the process group of every running tool (the tool and whatever it started) and refuses new
    /// ones. The runs waiting for them see them end and answer.
    package func stopAll() {
        state.withLock { state in
            state.stopping = true
            for group in state.groups {
                kill(-group, SIGKILL)
                state.stopped.insert(group)
            }
        }
    }
}
