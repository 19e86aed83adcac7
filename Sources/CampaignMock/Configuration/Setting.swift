import CampaignMockHTTP
import CampaignMockModel
import CampaignMockNetwork
import CampaignMockPush
import CampaignMockSOAP
import CampaignMockStorage
import CampaignMockSupport
import CampaignMockSystem

/// One scalar setting, known under three names: the JSON key in the config file (`journalLimit`),
/// the environment variable (`CAMPAIGN_MOCK_JOURNAL_LIMIT`) and the flag (`--journal-limit`).
/// Every source hands the value over as text, so each setting is parsed and checked in one place.
package struct Setting: Sendable {
    /// The config-file key.
    package let key: String
    /// A one-line description for `--help` and docs/configuration.md.
    package let help: String
    /// The flag when it is not the kebab-case key (`--app` for `apps`).
    private var flagName: String?
    /// How the flag takes its value on the command line.
    package let form: FlagForm
    let apply: @Sendable (inout Configuration, String) throws -> Void

    /// How a setting's flag takes its value.
    package enum FlagForm: Sendable {
        /// `--port 9000` or `--port=9000`.
        case value
        /// `--in-memory`: no value; given means `true`.
        case `switch`
        /// `--app A --app B`: a value each time, handed over one per line.
        case repeated
    }

    init(
        key: String, help: String, flag: String? = nil, form: FlagForm = .value,
        apply: @escaping @Sendable (inout Configuration, String) throws -> Void
    ) {
        self.key = key
        self.help = help
        self.flagName = flag
        self.form = form
        self.apply = apply
    }

    /// A setting whose value is a duration (`10s`, `5m`, `24h`), kept as milliseconds at `field`.
    static func duration(key: String, help: String, _ field: any WritableKeyPath<Configuration, Int> & Sendable)
        -> Setting
    {
        Setting(key: key, help: help) { config, value in config[keyPath: field] = try parseDuration(value) }
    }

    /// `--journal-limit`.
    package var flag: String { flagName ?? "--" + Self.words(of: key, separator: "-", uppercase: false) }
    /// `CAMPAIGN_MOCK_JOURNAL_LIMIT`.
    package var environmentVariable: String {
        "CAMPAIGN_MOCK_" + Self.words(of: key, separator: "_", uppercase: true)
    }

    /// The words of a camelCase key (ASCII), joined by `separator`: `journalLimit` → `journal-limit`.
    /// Done on bytes: on Characters it was a tenth of the time to start (every flag's help names it).
    private static func words(of key: String, separator: Unicode.Scalar, uppercase: Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(key.utf8.count + 4)
        for byte in key.utf8 {
            let isUpper = (65...90).contains(byte)
            if isUpper { bytes.append(UInt8(separator.value)) }
            let lower = isUpper ? byte + 32 : byte
            bytes.append(uppercase && (97...122).contains(lower) ? lower - 32 : lower)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Setting {
    /// Every scalar setting, in the order `--help` lists them.
    package static let all: [Setting] = [
        Setting(key: "host", help: "Address to listen on (0.0.0.0 or :: for every interface).") { config, value in
            let port = config.http.address.port
            config.http.address = try parse(value, as: "host") { try? SocketAddress(parsing: $0, port: port) }
        },
        Setting(key: "port", help: "HTTP port; 0 picks a free port and prints it.") { config, value in
            let address = config.http.address
            let port = try parse(value, as: "port number (0-65535)") { UInt16($0) }
            config.http.address = SocketAddress(host: address.host, port: port, family: address.family)
        },
        Setting(key: "dataDir", help: "Directory of the SQLite state file.") { config, value in
            guard !value.isEmpty else { throw ConfigurationError("dataDir: must not be empty") }
            config.dataDirectory = value
        },
        Setting(key: "inMemory", help: "Keep all state in memory; nothing is written to disk.", form: .switch) {
            config, value in
            config.inMemory = try parse(value, as: "boolean (true or false)", parseBool)
        },
        Setting(
            key: "import",
            help: "A state snapshot (GET /_mock/state's JSON) imported at start, as PUT /_mock/state imports it; "
                + "a refused one stops the start."
        ) { config, value in
            guard !value.isEmpty else { throw ConfigurationError("import: must not be empty") }
            config.importFile = value
        },
        Setting(
            key: "exportOnExit",
            help: "Write the state snapshot to this file when the server stops on SIGTERM or SIGINT (atomically)."
        ) { config, value in
            guard !value.isEmpty else { throw ConfigurationError("exportOnExit: must not be empty") }
            config.exportOnExit = value
        },
        Setting(key: "logLevel", help: "trace, debug, info, warning or error.") { config, value in
            config.logLevel = try parse(value, as: "log level (trace, debug, info, warning, error)") {
                LogLevel(rawValue: $0.lowercased())
            }
        },
        Setting(key: "logFormat", help: "text or json.") { config, value in
            config.logFormat = try parse(value, as: "log format (text or json)") {
                LogFormat(rawValue: $0.lowercased())
            }
        },
        Setting(key: "journalLimit", help: "Most requests kept in the journal (older ones are dropped and counted).") {
            config, value in
            config.journalLimit = try parse(value, as: "count (1 or more)") { Int($0).flatMap { $0 >= 1 ? $0 : nil } }
        },
        Setting(
            key: "journalMaxSize",
            help:
                "About the most the journal's two files take on disk, 1MiB or more, e.g. 256MiB (the oldest requests go first)."
        ) { config, value in
            // Less would start a new file at every batch: half the budget is what the entries kept may take.
            let size = try parseSize(value)
            guard size >= 1 << 20 else {
                throw ConfigurationError("'\(value)' is below the journal's least size, 1MiB")
            }
            config.journalMaxSize = size
        },
        Setting(key: "retainEvents", help: "Newest tracking events kept (older ones are deleted); 0 keeps all.") {
            config, value in
            config.retention.events = try parse(value, as: "count (0 or more)") {
                Int($0).flatMap { $0 >= 0 ? $0 : nil }
            }
        },
        Setting(key: "retainDevices", help: "Devices kept, the most recently registered; 0 keeps all.") {
            config, value in
            config.retention.devices = try parse(value, as: "count (0 or more)") {
                Int($0).flatMap { $0 >= 0 ? $0 : nil }
            }
        },
        Setting(key: "retainDays", help: "Delete events and devices not seen for this many days; 0 keeps them.") {
            config, value in
            config.retention.days = try parse(value, as: "count of days (0 or more)") {
                Int($0).flatMap { (0...36_500).contains($0) ? $0 : nil }
            }
        },
        Setting(key: "maxBodySize", help: "Largest request body, e.g. 1MiB (413 beyond).") { config, value in
            config.http.limits.bodyBytes = try parseSize(value)
        },
        Setting(
            key: "maxStateSize",
            help: "Largest state import (PUT /_mock/state), e.g. 4GiB; it waits in a temporary file (413 beyond)."
        ) { config, value in
            config.maxStateBytes = try parseSize(value, maximum: 1 << 40)
        },
        Setting(key: "maxHeaderSize", help: "Largest header section, e.g. 32KiB (431 beyond).") { config, value in
            config.http.limits.headerBytes = try parseSize(value)
        },
        Setting(key: "maxHeaderCount", help: "Most header fields in a request (431 beyond).") { config, value in
            config.http.limits.headerCount = try parse(value, as: "count (1 or more)") {
                Int($0).flatMap { $0 >= 1 ? $0 : nil }
            }
        },
        Setting(key: "maxRequestLine", help: "Longest request line, e.g. 8KiB (414 beyond).") { config, value in
            config.http.limits.requestLineBytes = try parseSize(value)
        },
        Setting(key: "maxConnections", help: "Most open connections (503 beyond).") { config, value in
            config.http.maxConnections = try parse(value, as: "count (1 or more)") {
                Int($0).flatMap { $0 >= 1 ? $0 : nil }
            }
        },
        Setting(
            key: "poller",
            help: "What the event loops wait in: epoll (Linux's default) or poll (macOS's; Linux runs it too)."
        ) { config, value in
            let names = Poller.Mechanism.allCases.map(\.rawValue).joined(separator: ", ")
            config.http.poller = try parse(value, as: "poller (\(names))") { Poller.Mechanism(rawValue: $0) }
        },
        .duration(
            key: "headerTimeout", help: "Time allowed to send a request head, e.g. 10s (408 after).",
            \.http.headerTimeoutMilliseconds),
        .duration(
            key: "bodyTimeout", help: "Time allowed to send a request body, e.g. 30s (408 after).",
            \.http.bodyTimeoutMilliseconds),
        .duration(
            key: "idleTimeout", help: "How long an idle keep-alive connection stays open, e.g. 60s.",
            \.http.idleTimeoutMilliseconds),
        .duration(
            key: "shutdownGrace", help: "How long shutdown waits for requests in flight, e.g. 5s.",
            \.shutdownGraceMilliseconds),
        Setting(
            key: "apps",
            help:
                "Applications as PLATFORM:KEY[:NAME[:ID]] (ios or android; ID the bundle id or package name); repeat "
                + "the flag, or separate with commas.",
            flag: "--app",
            form: .repeated
        ) { config, value in
            let entries = value.split(whereSeparator: { $0 == "," || $0 == "\n" }).map { $0.trimmingASCIISpaces() }
            config.applications = try checkedApplications(
                entries.filter { !$0.isEmpty }.map { entry in
                    do {
                        return try Application(specification: entry)
                    } catch let error as ApplicationError {
                        throw ConfigurationError(error.message)
                    }
                })
        },
        Setting(
            key: "strictTracking", help: "Answer 404 to tracking hits for message ids the mock never issued.",
            form: .switch
        ) {
            config, value in
            config.strictTracking = try parse(value, as: "boolean (true or false)", parseBool)
        },
        Setting(
            key: "adminToken",
            help: "Require 'Authorization: Bearer TOKEN' on the admin API (and allow clients beyond loopback)."
        ) { config, value in
            guard value.count >= 8, value.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw ConfigurationError("the admin token must be at least 8 visible ASCII characters")
            }
            config.adminToken = value
        },
        Setting(
            key: "allowedHosts",
            help:
                "Another Host name the admin API and console answer to (a tunnel, a team's DNS name; .example.com "
                + "allows every name under it); repeat, or separate with commas. Loopback names and IP addresses "
                + "are always allowed.",
            flag: "--allowed-host",
            form: .repeated
        ) { config, value in
            config.allowedHosts = try parseList(value, "is not a host name (letters, digits, dots and dashes)") {
                $0 != "." && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".-_:[]".contains($0)) }
            }
        },
        Setting(
            key: "tls", help: "auto: serve HTTPS with a certificate from a local CA made on first use; off (default)."
        ) {
            config, value in
            config.tls = try parse(value, as: "TLS mode (auto or off)") {
                ["auto", "off"].contains($0.lowercased()) ? $0.lowercased() : nil
            }
        },
        Setting(key: "tlsPort", help: "HTTPS port (default 8443); 0 picks a free port.") { config, value in
            config.tlsPort = try parse(value, as: "port number (0-65535)") { UInt16($0) }
        },
        Setting(key: "tlsCert", help: "Your own certificate chain (PEM) for HTTPS, instead of --tls auto.") {
            config, value in
            config.tlsCertificatePath = try parse(value, as: "file path") { $0.isEmpty ? nil : $0 }
        },
        Setting(key: "tlsKey", help: "The private key (PEM) for --tls-cert.") { config, value in
            config.tlsKeyPath = try parse(value, as: "file path") { $0.isEmpty ? nil : $0 }
        },
        Setting(
            key: "tlsSans",
            help: "More names (DNS or IP) for the --tls auto certificate; repeat, or separate with commas.",
            flag: "--tls-san",
            form: .repeated
        ) { config, value in
            config.tlsNames = try parseList(value, "is not a DNS name or an IP address") {
                $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".-:*".contains($0)) }
            }
        },
        Setting(key: "noHttp", help: "Serve HTTPS only (no plain HTTP listener).", form: .switch) { config, value in
            config.http.plainHTTP = !(try parse(value, as: "boolean (true or false)", parseBool))
        },
        Setting(key: "soapLogin", help: "Login the SOAP router accepts in xtk:session#Logon (default admin).") {
            config, value in
            config.soapLogin = try parse(value, as: "login") { $0.isEmpty ? nil : $0 }
        },
        Setting(key: "soapPassword", help: "Password for --soap-login (default admin).") { config, value in
            config.soapPassword = value
        },
        Setting(
            key: "soapBearerTokens",
            help:
                "A bearer token the SOAP router accepts (BearerTokenLogon, Authorization: Bearer); repeat, or "
                + "separate with commas (default campaign-mock-bearer-token).",
            flag: "--soap-bearer-token",
            form: .repeated
        ) { config, value in
            let tokens = try parseList(value, "is not a token (visible ASCII, no spaces)") {
                $0.allSatisfy { $0.isASCII && !$0.isWhitespace }
            }
            guard !tokens.isEmpty else { throw ConfigurationError("expected at least one bearer token") }
            config.soapBearerTokens = tokens
        },
        Setting(
            key: "operators",
            help:
                "Another operator the SOAP router accepts, as LOGIN:PASSWORD; repeat, or separate with commas "
                + "(default mc:mc, besides --soap-login).",
            flag: "--operator",
            form: .repeated
        ) { config, value in
            let entries = try parseList(value, "is not LOGIN:PASSWORD (a login, a colon, a password)") {
                guard let colon = $0.firstIndex(of: ":") else { return false }
                return colon != $0.startIndex
            }
            config.operators = entries.map { entry in
                let colon = entry.firstIndex(of: ":")!
                return SOAPOperator(
                    login: String(entry[..<colon]), password: String(entry[entry.index(after: colon)...]))
            }
        },
        .duration(
            key: "soapSessionTimeout", help: "How long a SOAP session lives (default 24h).",
            \.soapSessionTimeoutMilliseconds),
        .duration(
            key: "checkReceiveWindow",
            help:
                "How long a push APNs or FCM accepted may wait for its receive hit before the sent-not-received "
                + "check says so (default 2m).", \.checkReceiveWindowMilliseconds),
        Setting(key: "pushIdStyle", help: "Message ids of composed pushes: v7 (default), v7-negative, v7-64 or v8.") {
            config, value in
            config.pushIDStyle = try parse(value, as: "id style (v7, v7-negative, v7-64, v8)") {
                MessageIDStyle(rawValue: $0)
            }
        },
        Setting(
            key: "record", help: "Write every exchange (except /_mock/) as a fixture file into this empty directory."
        ) {
            config, value in
            config.recordDirectory = try parse(value, as: "directory") { $0.isEmpty ? nil : $0 }
        },
        Setting(key: "noRedact", help: "Keep secrets (keys, tokens, passwords) in recordings.", form: .switch) {
            config, value in
            config.redactRecordings = !(try parse(value, as: "boolean (true or false)", parseBool))
        },
        Setting(
            key: "upstream",
            help: "Forward Campaign traffic to this real server (http:// or https://) instead of answering it."
        ) {
            config, value in
            config.upstream = try parse(value, as: "http:// or https:// URL") {
                $0.hasPrefix("http://") || $0.hasPrefix("https://") ? $0 : nil
            }
        },
        Setting(key: "upstreamCa", help: "More CAs (PEM file) to trust for an https --upstream, besides the system's.")
        {
            config, value in
            config.upstreamCAFile = try parse(value, as: "file path") { $0.isEmpty ? nil : $0 }
        },
        Setting(key: "apnsKeyFile", help: "APNs signing key (.p8 file) for sending pushes to iOS devices.") {
            config, value in
            config.sending.apnsKeyFile = try parse(value, as: "file path") { $0.isEmpty ? nil : $0 }
        },
        Setting(key: "apnsKeyId", help: "The APNs key's 10-character key id.") { config, value in
            config.sending.apnsKeyID = try parse(value, as: "key id (10 letters and digits)") {
                $0.count == 10 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } ? $0 : nil
            }
        },
        Setting(key: "apnsTeamId", help: "The Apple developer team id the APNs key belongs to.") { config, value in
            config.sending.apnsTeamID = try parse(value, as: "team id (10 letters and digits)") {
                $0.count == 10 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } ? $0 : nil
            }
        },
        Setting(
            key: "apnsEnvironment",
            help: "sandbox (default: apps run from Xcode) or production (TestFlight, App Store, ad hoc)."
        ) { config, value in
            config.sending.apnsEnvironment = try parse(value, as: "APNs environment (sandbox or production)") {
                APNsEnvironment(rawValue: $0)
            }
        },
        Setting(key: "apnsUrl", help: "Send APNs requests here instead of Apple's host (a local fake, a proxy).") {
            config, value in
            config.sending.apnsURL = try parse(value, as: "https:// URL") { $0.hasPrefix("https://") ? $0 : nil }
        },
        Setting(
            key: "fcmServiceAccount",
            help: "Firebase service account key (JSON file) for sending pushes to Android devices through FCM."
        ) { config, value in
            config.sending.fcmServiceAccount = try parse(value, as: "file path") { $0.isEmpty ? nil : $0 }
        },
        Setting(key: "fcmUrl", help: "Send FCM requests here instead of Google's host (a local fake, a proxy).") {
            config, value in
            config.sending.fcmURL = try parse(value, as: "https:// URL") { $0.hasPrefix("https://") ? $0 : nil }
        },
        Setting(key: "providerCa", help: "More CAs (PEM file) to trust for the APNs and FCM hosts.") { config, value in
            config.sending.caFile = try parse(value, as: "file path") { $0.isEmpty ? nil : $0 }
        },
        Setting(
            key: "sendAllow",
            help:
                "Devices pushes may really be sent to: token:GLOB, or userKey:GLOB, app:GLOB, * for those trusted "
                + "on this machine (POST /_mock/devices/{token}/trust); none unless set.",
            form: .repeated
        ) { config, value in
            let items = try parseList(value, "is not a pattern") { _ in true }
            do {
                config.sending.allowList = SendAllowList(
                    try items.map { text throws(SendAllowListError) in
                        try SendAllowList.Pattern(parsing: text)
                    })
            } catch {
                throw ConfigurationError("\(error)")
            }
        },
        Setting(
            key: "autoSend", help: "Send every composed push through APNs or FCM (allow-list permitting).",
            form: .switch
        ) {
            config, value in
            config.sending.autoSend = try parse(value, as: "boolean (true or false)", parseBool)
        },
        Setting(key: "eventLoops", help: "Event-loop threads (default: one per CPU).") { config, value in
            config.http.eventLoopCount = try parse(value, as: "count (1-64)") {
                Int($0).flatMap { (1...64).contains($0) ? $0 : nil }
            }
        },
    ]

    /// The setting for a config-file key.
    package static func named(_ key: String) -> Setting? {
        all.first { $0.key == key }
    }

    /// The setting whose command-line flag is `flag` (`--journal-limit`).
    package static func flagged(_ flag: Substring) -> Setting? {
        all.first { $0.flag == flag }
    }

    // MARK: - Value parsing

    /// Refuses an empty list and repeated integration keys.
    static func checkedApplications(_ applications: [Application]) throws(ConfigurationError) -> [Application] {
        guard !applications.isEmpty else { throw ConfigurationError("no application given") }
        var seen: Set<String> = []
        for application in applications where !seen.insert(application.integrationKey).inserted {
            throw ConfigurationError("integration key '\(application.integrationKey)' is given twice")
        }
        return applications
    }

    private static func parse<T>(_ value: String, as kind: String, _ convert: (String) -> T?)
        throws(ConfigurationError) -> T
    {
        guard let result = convert(value.trimmingASCIISpaces()) else {
            throw ConfigurationError("'\(value)' is not a valid \(kind)")
        }
        return result
    }

    /// A repeated setting's values (one per line, or separated by commas), each checked by `isValid`;
    /// the first that is not is named with `complaint`.
    private static func parseList(_ value: String, _ complaint: String, _ isValid: (String) -> Bool)
        throws(ConfigurationError) -> [String]
    {
        let items = value.split(whereSeparator: { $0 == "," || $0 == "\n" }).map { $0.trimmingASCIISpaces() }
            .filter { !$0.isEmpty }
        if let bad = items.first(where: { !isValid($0) }) { throw ConfigurationError("'\(bad)' \(complaint)") }
        return items
    }

    private static func parseBool(_ value: String) -> Bool? {
        switch value.lowercased() {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default: return nil
        }
    }

    /// `1MiB`, `64KiB`, `4GiB`, `512` (bytes); `k`/`kb`/`m`/`mb`/`g`/`gb` are read as KiB/MiB/GiB. At most
    /// `maximum` bytes (2 GiB unless the setting says).
    static func parseSize(_ value: String, maximum: Int = Int(Int32.max)) throws(ConfigurationError)
        -> Int
    {
        let units: [(String, Int)] = [
            ("gib", 1 << 30), ("mib", 1 << 20), ("kib", 1024), ("gb", 1 << 30), ("mb", 1 << 20), ("kb", 1024),
            ("g", 1 << 30), ("k", 1024), ("m", 1 << 20), ("b", 1),
        ]
        let text = value.trimmingASCIISpaces().lowercased()
        for (suffix, factor) in units + [("", 1)] where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count).trimmingASCIISpaces()
            if let count = Int(number), count > 0, count <= maximum / factor {
                return count * factor
            }
        }
        throw ConfigurationError("'\(value)' is not a valid size (e.g. 512, 64KiB, 1MiB)")
    }

}
