import CampaignMockAdmin
package import CampaignMockChecks
package import CampaignMockHTTP
import CampaignMockJournal
import CampaignMockMobile
import CampaignMockModel
package import CampaignMockNetwork
import CampaignMockPush
import CampaignMockRecording
package import CampaignMockRuntime
import CampaignMockSOAP
package import CampaignMockStorage
package import CampaignMockSupport
package import CampaignMockSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The whole mock without a socket, built from a ``Configuration``: the store, the Campaign endpoints, the
/// admin API, the router in front of them. Requests reach it through ``handle(_:reply:)`` (and
/// ``admitHead(_:)`` for a head whose body is spooled or awaited): ``CampaignMockServer`` gives it as the
/// handler of its listener, the in-process test harness calls it directly. The addresses it answers for are
/// values given to ``start(at:listener:)``, not found by binding.
package final class CampaignMockApp: HTTPHandler {

    /// Where a state import waits when nothing may go to the data directory: `TMPDIR`, else `/tmp`.
    package static var temporaryFolder: String {
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
    /// How requests are read (size limits, the bodies spooled to a file) and where to listen, HTTPS's
    /// context included: what a listener needs, and what the in-process harness parses requests with.
    package let listenerConfiguration: HTTPServerConfiguration
    /// The local CA with `--tls auto`: its fingerprint, where it is kept and where it came from.
    package let certificateAuthority: (fingerprint: String, folder: String, origin: LocalCertificateAuthority.Origin)?
    private let dataDirectory: DataDirectory?
    private let retention: RetentionSweeper
    private let router: Router
    /// What the admin API and the SOAP router know of the listener: its addresses, its connections.
    private let server: ServerReference
    /// `xcrun` and `adb`, as found at start.
    private let devices: DeviceRunner
    /// The addresses given to ``start(at:listener:)``.
    private let given = Mutex<ListeningAddresses?>(nil)
    /// The admin API, for the snapshot `serve --import` brings and `--export-on-exit` writes.
    private let admin: AdminAPI
    /// What sending to real devices is configured with, for the banner.
    let sending: SendingStatus

    /// Opens the store (migrating it), applies the configured applications and fault rules, and builds the
    /// endpoints and the router. Nothing listens: ``start(at:listener:)`` says where the app is reached.
    ///
    /// - Throws: ``StoreError``, ``SQLiteError``, ``FaultRuleError`` or ``ConfigurationError`` with a message
    ///   fit for the user.
    package init(configuration: Configuration, logger: Logger) throws {
        let startedAt = Clock.monotonicNanoseconds()
        self.configuration = configuration
        dataDirectory = configuration.inMemory ? nil : try DataDirectory(path: configuration.dataDirectory)
        store = try Store(
            path: dataDirectory?.databasePath, journalLimit: configuration.journalLimit,
            journalBytes: configuration.journalMaxSize)
        for damage in store.journalDamage { logger.error(damage.description) }
        for note in store.leftoverRedoLog {
            if note.isDamage { logger.error(note.description) } else { logger.info(note.description) }
        }
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
        let log = AccessLog(logger: logger)
        let pipeline = EndpointPipeline(
            store: store, log: log, faults: faults, metrics: metrics, waits: waits, stream: stream)
        let server = ServerReference()
        self.server = server
        devices = DeviceRunner(
            tools: DeviceTools(environment: configuration.toolEnvironment),
            timeoutMilliseconds: configuration.deviceToolTimeoutMilliseconds, temporaryFolder: Self.temporaryFolder)
        let hosts = HostAllowList(names: HostAllowList.names(for: configuration))
        let admin = AdminAPI(
            store: store, log: log, startedAt: startedAt,
            access: AdminAccess(token: configuration.adminToken, hosts: hosts),
            faults: faults, metrics: metrics, waits: waits, server: server, stream: stream,
            pushIDStyle: configuration.pushIDStyle, sender: sender, devices: devices, checks: checks)
        self.admin = admin
        sending = sender.status
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
            group.add(
                nil, "/r",
                pipeline.route(.tracking, read: tracking.read, identify: tracking.identify, decide: tracking.decide))
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
            certificateAuthority = authority.map { ($0.fingerprint, $0.folder, $0.origin) }
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
        } catch {
            store.close()
            throw error
        }
        listenerConfiguration = listeners
        // Started last: every failure above closes the store.
        retention = RetentionSweeper(
            store: store, policy: configuration.retention,
            intervalMilliseconds: configuration.retentionSweepMilliseconds, logger: logger)
    }

    /// Takes traffic from now on, reached at `addresses` (what `/_mock/info`, the SOAP router's execution
    /// instance and the banner name); `listener`, when there is one, tells the admin API its open
    /// connections and when it shuts down. Called once.
    package func start(at addresses: ListeningAddresses, listener: (any Listener)? = nil) {
        given.withLock { $0 = addresses }
        server.start(listener: listener)
        server.describe(consoleInfo(addresses))
        server.setExecutionInstance(
            ExecutionInstance(url: addresses.baseURL, port: Int((addresses.plain ?? addresses.tls)?.port ?? 0)))
    }

    /// The addresses given to ``start(at:listener:)``; nil before.
    package var addresses: ListeningAddresses? { given.withLock { $0 } }

    package func handle(_ request: HTTPRequest, reply: ReplyChannel) {
        router.handle(request, reply: reply)
    }

    package func admitHead(_ request: HTTPRequest) -> HeadAdmission {
        router.admitHead(request)
    }

    /// Every route, for the test that keeps the OpenAPI description complete.
    package var routePatterns: [(method: HTTPMethod?, pattern: String)] { router.routePatterns }

    /// What the console's overview shows (`GET /_mock/info`).
    private func consoleInfo(_ addresses: ListeningAddresses) -> ConsoleInfo {
        ConsoleInfo(
            version: CampaignMockVersion.current, baseURL: addresses.baseURL, httpsURL: addresses.httpsURL,
            deviceURLs: addresses.deviceURLs.map { ConsoleInfo.DeviceURL(url: $0.url, use: $0.use) },
            certificateAuthorityFingerprint: certificateAuthority?.fingerprint,
            soapLogin: configuration.soapLogin, soapLogins: configuration.soapOperators.map(\.login),
            soapBearerTokens: configuration.soapBearerTokens,
            adminTokenRequired: configuration.adminToken != nil, recording: configuration.recordDirectory,
            retention: ConsoleInfo.Retention(
                events: configuration.retention.events, devices: configuration.retention.devices,
                days: configuration.retention.days, journal: configuration.journalLimit))
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
                try UpstreamProxy(
                    upstream: upstream, extraCAFile: configuration.upstreamCAFile, log: log,
                    bodyBytes: configuration.http.limits.bodyBytes))
        }
        return middleware
    }

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

    /// Where state is kept, for the banner.
    package var dataDescription: String {
        guard let dataDirectory else { return "in memory (nothing is written to disk)" }
        return dataDirectory.absolutePath + "/campaign-mock.sqlite3"
    }

    /// Stops the device tools still running and the retention sweeper, answers waiters and ends event
    /// streams, runs `drain` (where a listener finishes the requests in flight), then closes the store.
    /// Imports the snapshot `path` holds, as `PUT /_mock/state` would (its findings start afresh, its trust is
    /// none); returns what it brought, as that answer's JSON.
    ///
    /// - Throws: ``ConfigurationError`` naming the file, with the words a `400` import answer gives.
    package func importState(fromFile path: String) throws -> String {
        let file: SnapshotFile
        do {
            file = try SnapshotFile(path: path)
        } catch {
            throw ConfigurationError("import: cannot read \(path): \(error)")
        }
        do {
            return try admin.importState(fromFile: file)
        } catch let refusal as SnapshotRefusal {
            throw ConfigurationError("import: \(path) was refused: \(refusal.message)")
        }
    }

    /// Writes the state snapshot to `path` atomically (a temporary file beside it, then renamed): a reader
    /// sees the previous file or the whole new one.
    package func exportState(toFile path: String) throws {
        guard FileBytes.writeAtomically(try admin.exportState(), to: path, ownerOnly: true) else {
            throw ConfigurationError("exportOnExit: cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    package func shutdown(drain: () -> Void = {}) {
        server.stop()
        devices.stopTools()
        retention.stop()
        waits.finishAll()
        stream.finishAll()
        drain()
        store.close()
        dataDirectory?.release()
    }
}
