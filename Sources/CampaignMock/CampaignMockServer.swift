import CampaignMockAdmin
package import CampaignMockChecks
package import CampaignMockCore
import CampaignMockDelivery
import CampaignMockMobile
import CampaignMockModel
import CampaignMockRecording
package import CampaignMockRuntime
import CampaignMockSOAP
package import CampaignMockStorage
import CampaignMockSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The whole server, built from a ``Configuration``: the store, the Campaign endpoints, the admin API
/// and the HTTP listener. The CLI and the end-to-end tests both start it this way.
package final class CampaignMockServer: Sendable {

    /// Where a state import waits when nothing may go to the data directory: `TMPDIR`, else `/tmp`.
    static var temporaryFolder: String {
        // macOS's ends with a slash (`/var/folders/…/T/`); the file's name is added after one.
        let folder = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        let trimmed = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return trimmed.isEmpty ? "/tmp" : trimmed
    }

    package let configuration: Configuration
    package let store: Store
    package let faults: FaultRegistry
    package let waits: WaitRegistry
    package let metrics: Metrics
    /// `/_mock/stream`'s events.
    package let stream: EventHub
    /// The integration checks (`/_mock/checks`), fed from the store's committed changes.
    package let checks: IntegrationChecks
    private let dataDirectory: DataDirectory?
    private let retention: RetentionSweeper
    private let http: HTTPServer
    private let router: Router
    /// What sending to real devices is configured with, for `/_mock/info`.
    private let sending: ConsoleInfo.Sending
    /// `xcrun` and `adb`, as found at start.
    private let devices: DeviceRunner
    /// The local CA's fingerprint with `--tls auto`, for the banner.
    package let certificateAuthorityFingerprint: String?
    /// Where that CA is kept and where it came from, for the banner.
    private let certificateAuthorityPlace: (folder: String, origin: LocalCertificateAuthority.Origin)?

    /// Opens the store (migrating it), applies the configured applications and fault rules, and
    /// starts listening.
    ///
    /// - Throws: ``StoreError``, ``SQLiteError``, ``FaultRuleError`` or ``SystemCallError`` (address in
    ///   use, …) with a message fit for the user.
    package init(configuration: Configuration, logger: Logger) throws {
        let startedAt = Clock.monotonicNanoseconds()
        self.configuration = configuration
        dataDirectory = configuration.inMemory ? nil : try DataDirectory(path: configuration.dataDirectory)
        store = try Store(path: configuration.databasePath, journalLimit: configuration.journalLimit)
        for damage in store.journalDamage { logger.error(damage.description) }
        faults = FaultRegistry()
        waits = WaitRegistry(sink: store.sink)
        metrics = Metrics(sink: store.sink)
        var checkSettings = ChecksEngine.Settings()
        checkSettings.receiveWindow = Int64(configuration.checkReceiveWindowMilliseconds) * 1000
        checkSettings.openGrace = Int64(configuration.checkOpenGraceMilliseconds) * 1000
        let store = store
        let checks = IntegrationChecks(settings: checkSettings) {
            let applications = (try? store.read { try $0.applications() }) ?? []
            return Dictionary(applications.map { ($0.integrationKey, $0.platform) }, uniquingKeysWith: { a, _ in a })
        }
        let stream = EventHub(
            store: store, heartbeatMilliseconds: configuration.streamHeartbeatMilliseconds,
            bufferLimit: configuration.streamBufferLimit)
        // After the stream's subscription: a finding's event comes after the rows it is about.
        store.sink.subscribe { checks.committed($0) }
        checks.onChange { changes in
            for change in changes {
                var facts: EventHub.Facts = [:]
                facts[.app] = change.finding.app
                facts[.token] = change.finding.registrationToken
                facts[.platform] = change.finding.platform?.rawValue
                stream.publish(.check, change, facts: facts)
            }
        }
        self.checks = checks
        self.stream = stream
        let applications = configuration.applications ?? Application.demo
        do {
            try store.writeAndWait { transaction in
                for application in applications { try transaction.upsertApplication(application) }
            }
            for rule in configuration.faultRules { try faults.add(rule) }
        } catch {
            store.close()
            throw error
        }

        let sender: PushSender
        do {
            sender = try PushSender(settings: try configuration.providerSettings(), store: store)
        } catch let error as ProviderSetupError {
            store.close()
            throw ConfigurationError(error.message)
        } catch {
            store.close()
            throw error
        }
        sending = sender.status
        let log = AccessLog(logger: logger)
        let pipeline = EndpointPipeline(
            store: store, log: log, faults: faults, metrics: metrics, waits: waits, stream: stream)
        let server = ServerReference()
        devices = DeviceRunner(
            tools: DeviceTools(environment: configuration.toolEnvironment),
            timeoutMilliseconds: configuration.deviceToolTimeoutMilliseconds, temporaryFolder: Self.temporaryFolder)
        let hosts = HostAllowList(names: HostAllowList.names(for: configuration))
        let admin = AdminAPI(
            store: store, log: log, startedAt: startedAt,
            access: AdminAccess(token: configuration.adminToken, hosts: hosts),
            faults: faults, metrics: metrics, waits: waits, server: server, stream: stream,
            pushIDStyle: configuration.pushIDStyle, sender: sender, devices: devices, checks: checks)
        let tracking = TrackingEndpoint(store: store, strict: configuration.strictTracking)
        let soap = SOAPEndpoint(
            store: store,
            sessions: SOAPSessions(
                operators: configuration.soapOperators,
                bearerTokens: configuration.soapBearerTokens,
                lifetimeMilliseconds: configuration.soapSessionTimeoutMilliseconds),
            pushIDStyle: configuration.pushIDStyle, server: server, hosts: hosts,
            composed: { sender.composed($0, fromPage: $1) })
        let health = HealthPages()
        let registrations = Platform.allCases.map { [store] in RegistrationEndpoint(platform: $0, store: store) }

        var router = Router()
        router.group(
            "/_mock", middleware: admin.middleware, notFound: AdminAPI.notFound,
            errorResponse: AdminError.response(for:)
        ) { group in
            admin.register(on: &group)
        }
        // The Campaign endpoints: everything outside `/_mock`, unknown paths journaled too.
        let unknown: Router.Body = { request, _, reply in
            pipeline.run(.unknown, request, reply) { request in
                throw HTTPError(.notFound, "no Campaign endpoint at \(request.path)")
            }
        }
        let campaignMiddleware: [any Middleware]
        do {
            campaignMiddleware = try Self.campaignMiddleware(configuration, log: log, logger: logger)
        } catch {
            store.close()
            throw error
        }
        router.group("/", middleware: campaignMiddleware, notFound: unknown) { group in
            group.add(.get, "/", admin.root)
            for endpoint in registrations {
                let path = endpoint.platform == .ios ? "registerIOS" : "registerAndroid"
                group.add(
                    nil, "/nms/mobile/1/\(path).jssp",
                    pipeline.route(
                        endpoint.family, read: endpoint.read, identify: endpoint.identify, decide: endpoint.decide))
            }
            group.add(nil, "/r", pipeline.route(.tracking, identify: tracking.identify, tracking.decide))
            group.add(nil, "/nl/jsp/soaprouter.jsp", pipeline.route(.soap, soap.decide))
            group.add(nil, "/nl/jsp/schemawsdl.jsp", pipeline.route(.soap, WSDL.decide))
            group.add(nil, "/r/test", pipeline.route(.health, health.redirectTest))
            group.add(nil, "/nl/jsp/ping.jsp", pipeline.route(.health, health.ping))
            group.add(nil, "/nl/jsp/mcPing.jsp", pipeline.route(.health, soap.mcPing))
        }

        self.router = router
        var listeners = configuration.http
        listeners.spooling = BodySpooling(
            directory: configuration.inMemory ? Self.temporaryFolder : configuration.dataDirectory,
            limit: configuration.maxStateBytes, routes: [BodySpooling.Route(.put, "/_mock/state")])
        do {
            let (context, authority) = try Self.tlsContext(configuration, dataDirectory: dataDirectory)
            certificateAuthorityFingerprint = authority?.fingerprint
            certificateAuthorityPlace = authority.map { ($0.folder, $0.origin) }
            if let authority {
                server.setCertificateFiles(
                    Dictionary(
                        uniqueKeysWithValues: [CertificateExport.Format.pem, .der, .mobileconfig].map {
                            ($0, CertificateExport.files($0, authority: authority)[0].bytes)
                        }))
            }
            if let context {
                let address = listeners.address
                listeners.tls = TLSListener(
                    address: SocketAddress(host: address.host, port: configuration.tlsPort, family: address.family),
                    context: context)
            }
            http = try HTTPServer(configuration: listeners, handler: router, logger: logger)
        } catch {
            store.close()
            if let failure = error as? SystemCallError, let listenError = ListenError(failure, listeners: listeners) {
                throw listenError
            }
            throw error
        }
        // Started last: every failure above closes the store.
        retention = RetentionSweeper(
            store: store, policy: configuration.retention,
            intervalMilliseconds: configuration.retentionSweepMilliseconds, logger: logger)
        server.set(http)
        server.describe(consoleInfo)
        server.setExecutionInstance(
            ExecutionInstance(url: baseURL, port: Int((http.plainAddress ?? http.localAddress).port)))
    }

    /// What the console's overview shows (`GET /_mock/info`).
    private var consoleInfo: ConsoleInfo {
        ConsoleInfo(
            version: CampaignMockVersion.current, baseURL: baseURL, httpsURL: httpsURL,
            deviceURLs: deviceURLs.map { ConsoleInfo.DeviceURL(url: $0.url, use: $0.use) },
            certificateAuthorityFingerprint: certificateAuthorityFingerprint,
            soapLogin: configuration.soapLogin, soapLogins: configuration.soapOperators.map(\.login),
            soapBearerTokens: configuration.soapBearerTokens,
            adminTokenRequired: configuration.adminToken != nil, recording: configuration.recordDirectory,
            retention: ConsoleInfo.Retention(
                events: configuration.retention.events, devices: configuration.retention.devices,
                days: configuration.retention.days, journal: configuration.journalLimit),
            sending: sending, tools: devices.tools.info)
    }

    /// What runs around the Campaign endpoints: the recorder (`--record`) outside the upstream proxy
    /// (`--upstream`), when asked for.
    private static func campaignMiddleware(_ configuration: Configuration, log: AccessLog, logger: Logger)
        throws -> [any Middleware]
    {
        var middleware: [any Middleware] = []
        if let directory = configuration.recordDirectory {
            middleware.append(
                try Recorder(directory: directory, redact: configuration.redactRecordings, logger: logger))
        }
        if let upstream = configuration.upstream {
            middleware.append(
                try UpstreamProxy(upstream: upstream, extraCAFile: configuration.upstreamCAFile, log: log))
        }
        return middleware
    }

    /// The request handler, for tests that feed requests without a socket (a remote address, say).
    package var handlerForTesting: any HTTPHandler { router }

    /// How the listener reads requests (size limits, the bodies spooled to a file), for the in-process
    /// test harness, which parses each request as the listener would.
    package var listenerConfigurationForTesting: HTTPServerConfiguration { http.configuration }

    /// Open client connections, for the tests of hostile clients.
    package var openConnectionsForTesting: Int { http.connectionCount }

    /// Every route, for the test that keeps the OpenAPI description complete.
    package var routesForTesting: [(method: HTTPMethod?, pattern: String)] { router.routePatterns }

    /// The HTTPS context, and the local CA when it made the certificate.
    private static func tlsContext(_ configuration: Configuration, dataDirectory: DataDirectory?) throws
        -> (TLSContext?, LocalCertificateAuthority?)
    {
        switch configuration.tlsMode {
        case .off:
            return (nil, nil)
        case .auto:
            guard let folder = configuration.certificateAuthorityFolder else {
                throw ConfigurationError("--tls auto: \(CertificateAuthorityFolder.missing)")
            }
            let serverFolder = dataDirectory.map { $0.absolutePath + "/tls" }
            let authority = try LocalCertificateAuthority(folder: folder, olderFolder: serverFolder)
            let names = LocalCertificateAuthority.defaultNames(extra: configuration.tlsNames)
            let credentials = try authority.serverCredentials(names: names, directory: serverFolder)
            let context = try TLSContext(certificateChainPEM: credentials.chainPEM, privateKeyPEM: credentials.keyPEM)
            return (context, authority)
        case .files(let certificate, let key):
            guard let chain = FileBytes.read(certificate) else {
                throw ConfigurationError("--tls-cert: cannot read \(certificate)")
            }
            guard let keyPEM = FileBytes.read(key) else { throw ConfigurationError("--tls-key: cannot read \(key)") }
            return (try TLSContext(certificateChainPEM: chain, privateKeyPEM: keyPEM), nil)
        }
    }

    /// The bound address (with the real port when port 0 was asked for).
    package var localAddress: SocketAddress { http.localAddress }

    /// The HTTPS address, when HTTPS is on.
    package var tlsAddress: SocketAddress? { http.tlsAddress }

    /// `https://localhost:8443`, when HTTPS is on.
    package var httpsURL: String? {
        http.tlsAddress.map { address in
            address.host == "0.0.0.0" || address.host == "::" || address.isLoopback
                ? "https://localhost:\(address.port)" : "https://\(address)"
        }
    }

    /// `http://127.0.0.1:8080`: the address clients on this machine use (a wildcard host shows as loopback);
    /// the HTTPS URL when there is no plain HTTP.
    package var baseURL: String {
        guard var address = http.plainAddress else { return httpsURL ?? "" }
        if address.host == "0.0.0.0" { address = SocketAddress(host: "127.0.0.1", port: address.port, family: .ipv4) }
        if address.host == "::" { address = SocketAddress(host: "::1", port: address.port, family: .ipv6) }
        return "http://\(address)"
    }

    /// Where state is kept, for the banner.
    package var dataDescription: String {
        guard let dataDirectory else { return "in memory (nothing is written to disk)" }
        return dataDirectory.absolutePath + "/campaign-mock.sqlite3"
    }

    /// The start-up banner: where to connect (from this machine and from devices), the applications and
    /// their keys, where data lives. `command` is how the user runs this binary, for the hints.
    package func banner(command: String = "campaign-mock") -> String {
        let applications = (try? store.read { try $0.applications() }) ?? []
        let width = applications.map(\.name.count).max() ?? 0
        let list = applications.map { application in
            let padding = String(repeating: " ", count: width - application.name.count)
            let state = application.enabled ? "" : "  (disabled)"
            let target =
                (application.bundleId.map { ", bundle id \($0)" } ?? "")
                + (application.packageName.map { ", package \($0)" } ?? "")
            return "    \(application.name)\(padding)  \(application.platform.rawValue.leftPadded(7, with: " "))  "
                + "integration key \(application.integrationKey)\(target)\(state)"
        }
        let access = configuration.adminToken == nil ? "loopback clients only" : "needs the admin token"
        var lines = [
            "campaign-mock \(CampaignMockVersion.current) is ready",
            "  Console                    \(baseURL)/_mock/ui/",
        ]
        if http.plainAddress != nil { lines.append("  Marketing + tracking host  \(baseURL)") }
        if let httpsURL { lines.append("  HTTPS                      \(httpsURL)") }
        let devices = deviceURLs
        if !devices.isEmpty {
            lines.append("  From devices:")
            let urlWidth = devices.map(\.url.count).max() ?? 0
            lines += devices.map { "    \($0.url)\(String(repeating: " ", count: urlWidth - $0.url.count))  \($0.use)" }
        }
        if let fingerprint = certificateAuthorityFingerprint, let place = certificateAuthorityPlace {
            lines.append("  Local CA (SHA-256)         \(fingerprint)")
            lines.append("    kept in \(place.folder)")
            switch place.origin {
            case .found: break
            case .made:
                lines.append(
                    "    made now; every data directory of this user shares it (\(CertificateAuthorityFolder.variable) "
                        + "names another folder)")
            case .moved(let older): lines.append("    moved there from \(older), where older versions kept it")
            case .dataDirectory(let perUser):
                lines.append(
                    "    as older versions did; \(perUser) holds another CA, shared by your other data directories:")
                lines.append(
                    "    to use that one here, delete \(place.folder)/ca-cert.pem and ca-key.pem (devices then trust it instead)"
                )
            }
            lines.append("    devices must trust it: \(command) ca export --format pem|mobileconfig|android-nsc")
        }
        lines += [
            "  SOAP router                \(baseURL)/nl/jsp/soaprouter.jsp (operators "
                + "\(configuration.soapOperators.map(\.login).joined(separator: ", ")), bearer token "
                + "\(configuration.soapBearerTokens.joined(separator: ", ")))",
            "  Admin API                  \(baseURL)/_mock/ (\(access))",
            "  Data                       \(dataDescription)",
        ]
        if let directory = configuration.recordDirectory {
            lines.append("  Recording into             \(directory)")
            lines.append("    check a server against it: \(command) replay \(directory) --target \(baseURL)")
        }
        lines.append("  Applications (the SDK's integration key is mobileAppUuid):")
        return (lines + list + ["Stop with Ctrl-C."]).joined(separator: "\n")
    }

    /// The URLs a device uses, with what each is for: the Android emulator's alias of this machine's
    /// loopback (`10.0.2.2`) always, and the machine's network addresses when the server listens beyond
    /// loopback (a wildcard host, or one address).
    package var deviceURLs: [(url: String, use: String)] {
        let listening = [http.plainAddress.map { ("http", $0) }, http.tlsAddress.map { ("https", $0) }]
            .compactMap { $0 }
        var urls: [(url: String, use: String)] = []
        for (scheme, address) in listening {
            let wildcard = address.host == "0.0.0.0" || address.host == "::"
            if wildcard || address.isLoopback {
                urls.append(("\(scheme)://10.0.2.2:\(address.port)", "Android emulator"))
            }
            let hosts =
                address.host == "0.0.0.0"
                ? NetworkInterfaces.nonLoopbackAddresses().filter { !$0.contains(":") }
                : address.host == "::"
                    ? NetworkInterfaces.nonLoopbackAddresses()
                    : address.isLoopback ? [] : [address.host]
            for host in hosts {
                let shown = SocketAddress(host: host, port: address.port, family: host.contains(":") ? .ipv6 : .ipv4)
                urls.append(("\(scheme)://\(shown)", "a phone or another machine on this network"))
            }
        }
        return urls
    }

    /// Stops the device tools still running, stops accepting, answers waiters, finishes requests in flight
    /// (up to the grace period), then closes the store.
    package func shutdown() {
        devices.stopTools()
        retention.stop()
        waits.finishAll()
        stream.finishAll()
        http.shutdown(gracePeriodMilliseconds: configuration.shutdownGraceMilliseconds)
        store.close()
        dataDirectory?.release()
    }
}
