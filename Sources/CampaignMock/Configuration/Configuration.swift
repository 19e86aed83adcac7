import CampaignMockHTTP
package import CampaignMockModel
package import CampaignMockNetwork
package import CampaignMockPush
package import CampaignMockSOAP
package import CampaignMockStorage
package import CampaignMockSystem

/// Everything `campaign-mock serve` can be told. Built from defaults, then a JSON file, then
/// `CAMPAIGN_MOCK_*` environment variables, then command-line flags (see ``Configuration/resolve``).
package struct Configuration: Sendable, Equatable {
    /// The HTTP listener: address, request limits, connection bound, timeouts, event loops.
    package var http = HTTPServerConfiguration(address: SocketAddress(host: "127.0.0.1", port: 8080, family: .ipv4))
    /// Largest `PUT /_mock/state` body. It is kept in a temporary file in the data directory (the system's
    /// temporary folder with `inMemory`) while it arrives, so it costs disk, not memory.
    package var maxStateBytes = 4 << 30
    /// Where the SQLite file lives.
    package var dataDirectory = ".campaign-mock"
    /// Keep state in memory only; nothing is written to disk.
    package var inMemory = false
    /// A snapshot (`GET /_mock/state`'s document) imported at start, before the server listens (`--import`).
    package var importFile: String?
    /// Where the state is exported when the server stops on SIGTERM or SIGINT (`--export-on-exit`).
    package var exportOnExit: String?
    package var logLevel = LogLevel.info
    package var logFormat = LogFormat.text
    /// Most entries kept in the request journal; older ones are dropped and counted.
    package var journalLimit = 10_000
    /// About the most bytes the journal's two files take (`--journal-max-size`); the oldest entries go first.
    package var journalMaxSize = 256 << 20
    /// What the store keeps of events, devices and their history (``RetentionPolicy``).
    package var retention = RetentionPolicy()
    /// The longest wait between two sweeps of the store for what `retention` no longer keeps; they come
    /// sooner as the store grows (``RetentionPace``). Not a user setting; tests change it.
    package var retentionSweepMilliseconds = 1_000
    /// How long shutdown waits for requests in flight.
    package var shutdownGraceMilliseconds = 5_000
    /// Applications to create or update at start; nil starts the demo pair (``Application/demo``).
    package var applications: [Application]?
    /// Answer `404` to tracking hits for message ids the mock never issued.
    package var strictTracking = false
    /// With a token, every `/_mock/` call needs `Authorization: Bearer <token>`; without, loopback only.
    package var adminToken: String?
    /// More `Host` names the admin API and console answer to (`--allowed-host`); a leading dot allows every
    /// name under it. Loopback names and IP literals are always allowed (``HostAllowList``).
    package var allowedHosts: [String] = []
    /// Fault rules active from the start (config file `faults`).
    package var faultRules: [FaultRule] = []
    /// `auto` or `off` as given; nil when not given (then `tlsCertificatePath` decides).
    package var tls: String?
    /// The HTTPS port; 0 picks a free one.
    package var tlsPort: UInt16 = 8443
    /// A certificate chain and key of one's own (PEM files).
    package var tlsCertificatePath: String?
    package var tlsKeyPath: String?
    /// Extra names (DNS or IP) for the `--tls auto` certificate.
    package var tlsNames: [String] = []
    /// The folder of the per-user CA behind `--tls auto` (``CertificateAuthorityFolder``, from the
    /// environment only); nil when the environment names none.
    package var certificateAuthorityFolder: String?
    /// The SOAP router's credentials for `xtk:session#Logon`.
    package var soapLogin = "admin"
    package var soapPassword = "admin"
    /// More operators the SOAP router accepts besides `soapLogin` (`--operator LOGIN:PASSWORD`); by default
    /// `mc`, the operator of Adobe's acc-js-sdk samples.
    package var operators = [SOAPOperator(login: "mc", password: "mc")]

    /// Every operator `xtk:session#Logon` accepts, the `--soap-login` one first.
    package var soapOperators: [SOAPOperator] {
        [SOAPOperator(login: soapLogin, password: soapPassword)] + operators.filter { $0.login != soapLogin }
    }
    /// Bearer tokens the SOAP router accepts (`BearerTokenLogon`, or `Authorization: Bearer` on every call
    /// as a Campaign v8 technical account sends it).
    package var soapBearerTokens = ["campaign-mock-bearer-token"]
    /// How often `/_mock/stream` sends a heartbeat comment (not a user setting; tests shorten it).
    package var streamHeartbeatMilliseconds = 15_000
    /// The variables `xcrun` and `adb` are looked for with at start (`PATH`, `ANDROID_HOME`,
    /// `ANDROID_SDK_ROOT`, `HOME`: ``DeviceTools``); nil: the process's environment (tests name a folder of
    /// fakes instead).
    package var toolEnvironment: [String: String]?
    /// How long a device tool may run before it is stopped (tests shorten it).
    package var deviceToolTimeoutMilliseconds = 15_000
    /// Bytes a slow `/_mock/stream` reader may have waiting before its stream is cut (tests lower it).
    package var streamBufferLimit = 1 << 20
    /// How pushes number their messages unless a request says otherwise.
    package var pushIDStyle = MessageIDStyle.v7
    /// `--record`: where exchanges are written; nil records nothing.
    package var recordDirectory: String?
    /// Whether recordings replace secrets with placeholders (`--no-redact` turns it off).
    package var redactRecordings = true
    /// `--upstream`: the real Campaign server traffic is forwarded to; nil answers it here.
    package var upstream: String?
    /// `--upstream-ca`: more CAs to trust for an https upstream.
    package var upstreamCAFile: String?
    /// How long a SOAP session lives (Campaign's default is 24 h).
    package var soapSessionTimeoutMilliseconds = 86_400_000
    /// How long a push APNs or FCM accepted may wait for its receive hit (the `sent-not-received` check).
    package var checkReceiveWindowMilliseconds = 120_000
    /// How long after an open its receive may still come (the `open-without-receive` check; tests lower it).
    package var checkOpenGraceMilliseconds = 10_000
    /// Sending composed pushes through APNs and FCM, as given (`--apns-*`, `--fcm-*`, `--send-allow`);
    /// ``providerSettings()`` checks that the parts go together.
    package var sending = SendingInput()

    /// The provider settings as given, each optional until ``providerSettings()`` puts them together.
    package struct SendingInput: Sendable, Equatable {
        package var apnsKeyFile: String?
        package var apnsKeyID: String?
        package var apnsTeamID: String?
        package var apnsEnvironment = APNsEnvironment.sandbox
        package var apnsURL: String?
        package var fcmServiceAccount: String?
        /// The keys' text itself, from `CAMPAIGN_MOCK_APNS_KEY` and `CAMPAIGN_MOCK_FCM_SERVICE_ACCOUNT_JSON`
        /// (environment only: on a command line or in a config file a key would be shown or kept).
        package var apnsKeyText: String?
        package var fcmServiceAccountText: String?
        package var fcmURL: String?
        package var caFile: String?
        package var allowList = SendAllowList()
        package var autoSend = false
    }

    private static func credential(file: String?, setting: String, text: String?, variable: String)
        throws(ConfigurationError) -> Credential?
    {
        switch (file, text) {
        case (let path?, nil): .file(path: path, setting: setting)
        case (nil, let text?): .environment(variable: variable, text: text)
        case (nil, nil): nil
        case (_?, _?): throw ConfigurationError("give \(setting) or \(variable), not both")
        }
    }

    /// What the push sender is given: APNs when its key, key id and team id are all set, FCM when its
    /// service account is.
    ///
    /// - Throws: ``ConfigurationError`` for a part of APNs without the others.
    package func providerSettings() throws(ConfigurationError) -> ProviderSettings {
        let apnsKey = try Self.credential(
            file: sending.apnsKeyFile, setting: "apnsKeyFile", text: sending.apnsKeyText,
            variable: Credential.apnsKeyVariable)
        var apns: ProviderSettings.APNs?
        if let apnsKey, let keyID = sending.apnsKeyID, let teamID = sending.apnsTeamID {
            apns = ProviderSettings.APNs(
                key: apnsKey, keyID: keyID, teamID: teamID, environment: sending.apnsEnvironment, url: sending.apnsURL)
        } else if apnsKey != nil || sending.apnsKeyID != nil || sending.apnsTeamID != nil {
            throw ConfigurationError(
                "--apns-key-file (or \(Credential.apnsKeyVariable)), --apns-key-id and --apns-team-id go together")
        }
        let serviceAccount = try Self.credential(
            file: sending.fcmServiceAccount, setting: "fcmServiceAccount", text: sending.fcmServiceAccountText,
            variable: Credential.serviceAccountVariable)
        return ProviderSettings(
            apns: apns, fcm: serviceAccount.map { ProviderSettings.FCM(serviceAccount: $0, url: sending.fcmURL) },
            caFile: sending.caFile, allowList: sending.allowList, autoSend: sending.autoSend)
    }

    /// How HTTPS is served.
    package enum TLSMode: Sendable, Equatable {
        case off
        /// A certificate from the per-user local CA, kept in the data directory.
        case auto
        /// The user's certificate and key.
        case files(certificate: String, key: String)
    }

    package var tlsMode: TLSMode {
        if let certificate = tlsCertificatePath, let key = tlsKeyPath {
            return .files(certificate: certificate, key: key)
        }
        return tls == "auto" ? .auto : .off
    }

    /// Checks settings that only make sense together.
    func validate() throws(ConfigurationError) {
        if (tlsCertificatePath == nil) != (tlsKeyPath == nil) {
            throw ConfigurationError("--tls-cert and --tls-key go together")
        }
        if tls == "off" && tlsCertificatePath != nil {
            throw ConfigurationError("--tls off contradicts --tls-cert and --tls-key")
        }
        if tls == "auto" && tlsCertificatePath != nil {
            throw ConfigurationError("--tls auto makes its own certificate; leave out --tls-cert and --tls-key")
        }
        if !http.plainHTTP && tlsMode == .off {
            throw ConfigurationError("--no-http needs HTTPS: add --tls auto, or --tls-cert and --tls-key")
        }
        if http.plainHTTP && tlsMode != .off && tlsPort != 0 && tlsPort == http.address.port {
            throw ConfigurationError("--port and --tls-port must differ")
        }
        _ = try providerSettings()
    }

    package init() {
        http.eventLoopCount = Configuration.defaultEventLoops
    }

    /// One loop per core, at least one.
    package static var defaultEventLoops: Int { max(1, ProcessorInfo.activeProcessorCount) }
}
