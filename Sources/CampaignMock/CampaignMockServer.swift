package import CampaignMockCore
import Synchronization

/// The whole server, built from a ``Configuration``: the store, the Campaign endpoints, the admin API
/// and the HTTP listener. The CLI and the end-to-end tests both start it this way.
package final class CampaignMockServer: Sendable {
    /// The product version.
    package static let version = "0.1.0"

    package let configuration: Configuration
    package let store: Store
    private let dataDirectory: DataDirectory?
    private let http: HTTPServer

    /// Opens the store (migrating it) and starts listening.
    ///
    /// - Throws: ``StoreError``, ``SQLiteError`` or ``SystemCallError`` (address in use, …) with a
    ///   message fit for the user.
    package init(configuration: Configuration, logger: Logger) throws {
        let startedAt = Clock.monotonicNanoseconds()
        self.configuration = configuration
        dataDirectory = configuration.inMemory ? nil : try DataDirectory(path: configuration.dataDirectory)
        let journalLimit = configuration.journalLimit
        store = try Store(path: configuration.databasePath) { try $0.trimJournal(to: journalLimit) }
        let applications = configuration.applications ?? Application.demo
        do {
            try store.writeAndWait { transaction in
                for application in applications { try transaction.upsertApplication(application) }
            }
        } catch {
            store.close()
            throw error
        }

        let log = AccessLog(logger: logger)
        let pipeline = EndpointPipeline(store: store, log: log)
        let accepting = AcceptingFlag()
        let admin = AdminAPI(store: store, log: log, startedAt: startedAt, isAcceptingTraffic: accepting.get)
        var router = Router(
            notFound: { request, reply in
                if request.path.hasPrefix("/_mock") {
                    admin.notFound(request, reply)
                } else {
                    pipeline.run("unknown", request, reply) { request in
                        throw HTTPError(.notFound, "no Campaign endpoint at \(request.path)")
                    }
                }
            },
            methodNotAllowed: admin.methodNotAllowed)
        admin.register(on: &router)
        for platform in Platform.allCases {
            let endpoint = RegistrationEndpoint(platform: platform, store: store)
            let path = platform == .ios ? "registerIOS" : "registerAndroid"
            router.add(nil, "/nms/mobile/1/\(path).jssp", pipeline.route(endpoint.family, endpoint.decide))
        }
        let tracking = TrackingEndpoint(store: store, strict: configuration.strictTracking)
        router.add(nil, "/r", pipeline.route("tracking", tracking.decide))
        let health = HealthPages()
        router.add(nil, "/r/test", pipeline.route("health", health.redirectTest))
        router.add(nil, "/nl/jsp/ping.jsp", pipeline.route("health", health.ping))

        do {
            http = try HTTPServer(configuration: configuration.http, handler: router)
        } catch {
            store.close()
            throw error
        }
        accepting.http = http
    }

    /// The bound address (with the real port when port 0 was asked for).
    package var localAddress: SocketAddress { http.localAddress }

    /// `http://127.0.0.1:8080`: the address clients on this machine use (a wildcard host shows as loopback).
    package var baseURL: String {
        var address = http.localAddress
        if address.host == "0.0.0.0" { address = SocketAddress(host: "127.0.0.1", port: address.port, family: .ipv4) }
        if address.host == "::" { address = SocketAddress(host: "::1", port: address.port, family: .ipv6) }
        return "http://\(address)"
    }

    /// Where state is kept, for the banner.
    package var dataDescription: String {
        guard let dataDirectory else { return "in memory (nothing is written to disk)" }
        return dataDirectory.absolutePath + "/campaign-mock.sqlite3"
    }

    /// The start-up banner: where to connect, the applications and their keys, where data lives.
    package var banner: String {
        let applications = (try? store.read { try $0.applications() }) ?? []
        let width = applications.map(\.name.count).max() ?? 0
        let list = applications.map { application in
            let padding = String(repeating: " ", count: width - application.name.count)
            let state = application.enabled ? "" : "  (disabled)"
            return "    \(application.name)\(padding)  \(application.platform.rawValue.leftPadded(7, with: " "))  "
                + "integration key \(application.integrationKey)\(state)"
        }
        return
            ([
                "campaign-mock \(Self.version) is ready",
                "  Marketing + tracking host  \(baseURL)",
                "  Admin API                  \(baseURL)/_mock/",
                "  Data                       \(dataDescription)",
                "  Applications (the SDK's integration key is mobileAppUuid):",
            ] + list + ["Stop with Ctrl-C."]).joined(separator: "\n")
    }

    /// Stops accepting, finishes requests in flight (up to the grace period), then closes the store.
    package func shutdown() {
        http.shutdown(gracePeriodMilliseconds: configuration.shutdownGraceMilliseconds)
        store.close()
    }
}

/// Lets the admin API ask the HTTP server, built after it, whether shutdown began.
private final class AcceptingFlag: Sendable {
    private let server = Mutex<HTTPServer?>(nil)

    var http: HTTPServer? {
        get { server.withLock { $0 } }
        set { server.withLock { $0 = newValue } }
    }

    var get: @Sendable () -> Bool {
        { [self] in !(http?.isShuttingDown ?? true) }
    }
}
