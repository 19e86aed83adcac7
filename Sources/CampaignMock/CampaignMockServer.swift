package import CampaignMockHTTP
import CampaignMockNetwork
import CampaignMockRuntime
package import CampaignMockSystem

/// The mock on sockets: a ``CampaignMockApp`` built from a ``Configuration``, and the HTTP listener that
/// hands it every request. The CLI and the tests of the wire start it this way.
package final class CampaignMockServer: Sendable {
    /// What answers: the store, the endpoints, the router.
    package let app: CampaignMockApp
    private let http: HTTPServer
    /// Where it listens, with the real ports.
    package let addresses: ListeningAddresses
    private let logger: Logger

    /// Builds the app (opening and migrating the store, applying the configured applications and fault
    /// rules), then listens and starts it.
    ///
    /// - Throws: ``StoreError``, ``SQLiteError``, ``FaultRuleError``, ``ConfigurationError`` or ``ListenError``
    ///   (address in use, …) with a message fit for the user.
    package init(configuration: Configuration, logger: Logger) throws {
        self.logger = logger
        app = try CampaignMockApp(configuration: configuration, logger: logger)
        // Before anything listens: no request sees the store without the snapshot.
        if let file = configuration.importFile {
            do {
                let counts = try app.importState(fromFile: file)
                logger.info("imported \(file): \(counts)")
            } catch {
                app.shutdown()
                throw error
            }
        }
        let listeners = app.listenerConfiguration
        do throws(SystemCallError) {
            http = try HTTPServer(configuration: listeners, handler: app, logger: logger)
        } catch {
            app.shutdown()
            if let listenError = ListenError(error, listeners: listeners) { throw listenError }
            throw error
        }
        addresses = ListeningAddresses(plain: http.plainAddress, tls: http.tlsAddress)
        app.start(at: addresses, listener: http)
    }

    /// Open client connections, for the tests of hostile clients.
    package var openConnectionsForTesting: Int { http.connectionCount }

    /// The bound address (with the real port when port 0 was asked for).
    package var localAddress: SocketAddress { http.localAddress }

    /// The HTTPS address, when HTTPS is on.
    package var tlsAddress: SocketAddress? { http.tlsAddress }

    /// Stops the device tools still running, answers waiters, stops accepting, finishes requests in flight
    /// (up to the grace period), then closes the store.
    package func shutdown() {
        app.shutdown {
            http.shutdown(gracePeriodMilliseconds: app.configuration.shutdownGraceMilliseconds)
            // Once no request is left to change it, before the store closes.
            guard let file = app.configuration.exportOnExit else { return }
            do {
                try app.exportState(toFile: file)
                logger.info("exported the state to \(file)")
            } catch {
                logger.error("\(error)")
            }
        }
    }
}

/// The admin API reads the open connections and the shutdown through Runtime's protocol, which knows no socket.
extension HTTPServer: Listener {}
