/// `GET /_mock/info`: where the server can be reached and how, for the console's overview (the admin API
/// adds what push says of sending and of the device tools).
package struct ConsoleInfo: Sendable, Codable, Equatable {
    package struct DeviceURL: Sendable, Codable, Equatable {
        package var url: String
        package var use: String

        package init(
            url: String, use: String
        ) {
            self.url = url
            self.use = use
        }
    }

    package var version: String
    /// `http://127.0.0.1:8080`, what this machine uses.
    package var baseURL: String
    package var httpsURL: String?
    /// The Android emulator's alias of this machine and the network addresses.
    package var deviceURLs: [DeviceURL]
    /// With `--tls auto`: devices must trust this CA (`GET /_mock/ca`).
    package var certificateAuthorityFingerprint: String?
    /// The first operator (`--soap-login`), and every operator `xtk:session#Logon` accepts.
    package var soapLogin: String
    package var soapLogins: [String]
    package var soapBearerTokens: [String]
    package var adminTokenRequired: Bool
    /// The `--record` directory, when recording.
    package var recording: String?
    /// What a long-lived instance keeps (`--retain-events`, `--retain-devices`, `--retain-days`; 0 is no limit).
    package var retention: Retention

    package struct Retention: Sendable, Codable, Equatable {
        package var events: Int
        package var devices: Int
        package var days: Int
        package var journal: Int

        package init(
            events: Int, devices: Int, days: Int, journal: Int
        ) {
            self.events = events
            self.devices = devices
            self.days = days
            self.journal = journal
        }
    }

    package init(
        version: String, baseURL: String, httpsURL: String? = nil, deviceURLs: [DeviceURL],
        certificateAuthorityFingerprint: String? = nil, soapLogin: String, soapLogins: [String],
        soapBearerTokens: [String], adminTokenRequired: Bool, recording: String? = nil, retention: Retention
    ) {
        self.version = version
        self.baseURL = baseURL
        self.httpsURL = httpsURL
        self.deviceURLs = deviceURLs
        self.certificateAuthorityFingerprint = certificateAuthorityFingerprint
        self.soapLogin = soapLogin
        self.soapLogins = soapLogins
        self.soapBearerTokens = soapBearerTokens
        self.adminTokenRequired = adminTokenRequired
        self.recording = recording
        self.retention = retention
    }
}
