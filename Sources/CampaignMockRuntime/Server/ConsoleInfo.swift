/// `GET /_mock/info`: where the server can be reached and how, for the console's overview.
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
    /// Sending composed pushes to real devices: what is configured, never a credential.
    package var sending: Sending

    package struct Sending: Sendable, Codable, Equatable {
        /// `sandbox` or `production` when APNs is configured.
        package var apns: String?
        /// The Firebase project when FCM is configured.
        package var fcm: String?
        /// The send allow-list's patterns; empty lets nothing through.
        package var allowList: [String]
        package var autoSend: Bool

        package init(apns: String? = nil, fcm: String? = nil, allowList: [String] = [], autoSend: Bool = false) {
            self.apns = apns
            self.fcm = fcm
            self.allowList = allowList
            self.autoSend = autoSend
        }
    }

    /// The device tools found at start, for the one-click pushes to a simulator or an emulator.
    package var tools: Tools

    /// Where each tool was found; absent when it was not. `lookup` says where, or where it was looked for.
    package struct Tools: Sendable, Codable, Equatable {
        /// `xcrun`, which runs `simctl` (macOS with Xcode).
        package var xcrun: String?
        /// `adb` (Android platform tools).
        package var adb: String?
        package var lookup: Lookup

        /// Per tool, `found on PATH`, `found in $ANDROID_HOME/platform-tools`…, or `not found at start: looked
        /// on PATH, in …`.
        package struct Lookup: Sendable, Codable, Equatable {
            package var xcrun: String
            package var adb: String

            package init(xcrun: String, adb: String) {
                self.xcrun = xcrun
                self.adb = adb
            }
        }

        package init(xcrun: String? = nil, adb: String? = nil, lookup: Lookup = Lookup(xcrun: "", adb: "")) {
            self.xcrun = xcrun
            self.adb = adb
            self.lookup = lookup
        }
    }

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
        soapBearerTokens: [String], adminTokenRequired: Bool, recording: String? = nil, retention: Retention,
        sending: Sending = Sending(), tools: Tools = Tools()
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
        self.sending = sending
        self.tools = tools
    }
}
