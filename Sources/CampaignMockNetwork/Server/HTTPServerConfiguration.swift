package import CampaignMockHTTP

/// How an ``HTTPServer`` listens, and the limits it enforces on clients.
package struct HTTPServerConfiguration: Sendable, Equatable {
    /// Where to listen for plain HTTP; port 0 picks a free port (read it back from ``HTTPServer/plainAddress``).
    package var address: SocketAddress
    /// Whether to listen for plain HTTP at all (off for an HTTPS-only server).
    package var plainHTTP = true
    /// The HTTPS listener, if any.
    package var tls: TLSListener?
    /// Request size limits.
    package var limits = HTTPRequestParser.Limits()
    /// The requests whose bodies may be larger than `limits` allow, kept in a temporary file.
    package var spooling: BodySpooling?
    /// Most open connections; beyond it a new client gets `503` and is closed.
    package var maxConnections = 4096
    /// Longest wait for a complete request head once its first byte arrived (then `408`).
    package var headerTimeoutMilliseconds = 10_000
    /// Longest wait for a complete body once the head arrived (then `408`).
    package var bodyTimeoutMilliseconds = 30_000
    /// How long an idle keep-alive connection stays open.
    package var idleTimeoutMilliseconds = 60_000
    /// Longest time a client may leave a response unread before the connection is dropped.
    package var writeTimeoutMilliseconds = 30_000
    /// Event-loop threads; each serves its share of the connections.
    package var eventLoopCount = 2
    /// The readiness call the event loops wait in (Linux can run macOS's, `poll(2)`, for tests).
    package var poller = Poller.Mechanism.platformDefault
    /// The `Server` header.
    package var serverName = "campaign-mock"
    /// `listen(2)` backlog.
    package var backlog: Int32 = 1024

    package init(address: SocketAddress) {
        self.address = address
    }
}

/// An HTTPS listener: where, and with which certificate.
package struct TLSListener: Sendable, Equatable {
    /// Port 0 picks a free port (read it back from ``HTTPServer/tlsAddress``).
    package var address: SocketAddress
    package var context: TLSContext

    package init(address: SocketAddress, context: TLSContext) {
        self.address = address
        self.context = context
    }
}
