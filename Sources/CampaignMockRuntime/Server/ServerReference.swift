package import CampaignMockStorage
package import CampaignMockSupport
import Synchronization

/// What the admin API reads of the listener in front of the app. The composition root makes its HTTP server
/// one, so that the endpoints reach no socket code.
package protocol Listener: AnyObject, Sendable {
    var connectionCount: Int { get }
    var isShuttingDown: Bool { get }
}

/// Lets the admin API reach what is known once the app is built: its addresses, whether it takes traffic,
/// and the listener in front of it when there is one (built after it: open connections, shutdown).
package final class ServerReference: Sendable {
    package init() {}

    /// Whether the app was started and not yet stopped.
    private let started = Mutex(false)
    private let server = Mutex<(any Listener)?>(nil)
    private let info = Mutex<ConsoleInfo?>(nil)
    private let certificateFiles = Mutex<[CertificateExport.Format: [UInt8]]>([:])
    private let instance = Mutex(ExecutionInstance(url: "", port: 0))

    package func setExecutionInstance(_ instance: ExecutionInstance) {
        self.instance.withLock { $0 = instance }
    }

    /// This server's URL and port as `nms:extAccount` gives them (empty before it listens).
    package var executionInstance: ExecutionInstance { instance.withLock { $0 } }

    package func describe(_ description: ConsoleInfo) {
        info.withLock { $0 = description }
    }

    /// The URLs, keys and settings the console shows; nil before the server listens.
    package var description: ConsoleInfo? { info.withLock { $0 } }

    package func setCertificateFiles(_ files: [CertificateExport.Format: [UInt8]]) {
        certificateFiles.withLock { $0 = files }
    }

    /// The local CA with `--tls auto` in a device's format, for `GET /_mock/ca`; nil without it.
    package func certificate(_ format: CertificateExport.Format) -> [UInt8]? {
        certificateFiles.withLock { $0[format] }
    }

    /// The app takes traffic from now on, through `listener` when there is one.
    package func start(listener: (any Listener)?) {
        server.withLock { $0 = listener }
        started.withLock { $0 = true }
    }

    /// The app is shutting down.
    package func stop() {
        started.withLock { $0 = false }
    }

    /// Whether the app takes traffic (false before it starts and once shutdown began).
    package var isAcceptingTraffic: Bool {
        started.withLock { $0 } && !(server.withLock { $0?.isShuttingDown } ?? false)
    }

    package var openConnections: Int {
        server.withLock { $0?.connectionCount ?? 0 }
    }
}
