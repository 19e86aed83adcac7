// swift-tools-version:6.0
// 6.0, which every Xcode 16 reads (16.0 brings Swift 6.0): an app on Xcode 16 or 26 adds the package by
// URL for CampaignMockClient (docs/swift-client.md); scripts/check-manifest.py (make lint) keeps it there.
// Warnings are errors through the flag make and CI pass (`-Xswiftc -warnings-as-errors`), not the manifest:
// a 6.0 manifest has no `treatAllWarnings`, and an app's build of the client must not fail on a newer
// compiler's warning. The server is built and tested with Swift 6.2 (Xcode 26) and newer only, and uses
// Synchronization's Mutex, which macOS has from 15 on (README, "Building on macOS"); the client and its
// model need only Swift 6.0.
import PackageDescription

#if os(macOS)
    import Foundation
#endif

/// ExistentialAny (Swift 5.8) and InternalImportsByDefault (6.0) hold for every compiler that reads the
/// manifest; MemberImportVisibility is 6.1's, and a 6.0 compiler ignores it (it only narrows what compiles).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The commit `campaign-mock --version` names: CAMPAIGN_MOCK_COMMIT in the build's environment, which the
/// Makefile sets from git for every build (SwiftPM caches `Context.gitInformation` across commits, so it
/// would name an old one). A build without it says "commit unknown".
let buildCommit = Context.environment["CAMPAIGN_MOCK_COMMIT"].flatMap { $0.isEmpty ? nil : $0 }

#if os(macOS)
    /// macOS has SQLite in its SDK: the binary uses the system's library, nothing from Homebrew.
    let sqlitePackage: String? = nil
    /// Homebrew's prefix for the architecture the manifest is built for: Apple silicon's Homebrew lives in
    /// /opt/homebrew, Intel's in /usr/local, and a Mac may have both (an Intel one under Rosetta). A manifest
    /// sees only the host's architecture, so a cross or universal build names its libraries through
    /// PKG_CONFIG_PATH instead, as scripts/dist.sh does.
    #if arch(arm64)
        let homebrew = "/opt/homebrew"
    #else
        let homebrew = "/usr/local"
    #endif
    /// A library from Homebrew: SwiftPM looks for `.pc` files with the `brew` and `pkg-config` on PATH, and
    /// Xcode has neither there, so the manifest names Homebrew's file itself unless PKG_CONFIG_PATH says where
    /// to look (or Homebrew has no such file: then `name` is looked up as usual).
    func homebrewPackage(_ name: String, file: String) -> String {
        let path = homebrew + "/opt/" + file
        return Context.environment["PKG_CONFIG_PATH"] == nil && FileManager.default.fileExists(atPath: path)
            ? path : name
    }
    /// OpenSSL from Homebrew's openssl@3. `libcrypto.pc`, not `openssl.pc`: it requires no other file, found by
    /// name only, and gives the same folders (the module map links both libraries).
    let openSSLPackage = homebrewPackage("openssl", file: "openssl@3/lib/pkgconfig/libcrypto.pc")
    /// nghttp2 (HTTP/2 for APNs) from Homebrew's libnghttp2.
    let nghttp2Package = homebrewPackage("libnghttp2", file: "libnghttp2/lib/pkgconfig/libnghttp2.pc")
#else
    let sqlitePackage: String? = "sqlite3"
    let openSSLPackage = "openssl"
    let nghttp2Package = "libnghttp2"
#endif

/// The server's targets, for the executables and tests that build on all of it.
let serverTargets: [Target.Dependency] = [
    "CampaignMock", "CampaignMockModel", "CampaignMockSupport", "CampaignMockJournal", "CampaignMockStorage",
    "CampaignMockRuntime", "CampaignMockMobile", "CampaignMockSOAP", "CampaignMockAdmin", "CampaignMockRecording",
    "CampaignMockPush", "CampaignMockChecks", "CampaignMockSystem", "CampaignMockHTTP", "CampaignMockNetwork",
]

let package = Package(
    name: "campaign-mock",
    platforms: [.macOS(.v15), .iOS(.v15)],
    products: [
        .executable(name: "campaign-mock", targets: ["CampaignMockCLI"]),
        .executable(name: "campaign-mock-fuzz", targets: ["CampaignMockFuzz"]),
        // For an app's XCTest / XCUITest target: the admin API over URLSession, nothing of the server.
        .library(name: "CampaignMockClient", targets: ["CampaignMockClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: sqlitePackage,
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Linux calls that Swift's Glibc module does not export (epoll, accept4, pthread_setname_np).
        .systemLibrary(name: "CLinux"),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: openSSLPackage,
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // HTTP/2's framing, header compression and flow control, for the APNs client.
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: nghttp2Package,
            providers: [.apt(["libnghttp2-dev"]), .brew(["libnghttp2"])]
        ),
        .target(
            name: "CBuildInfo",
            cSettings: buildCommit.map { [.define("CAMPAIGN_MOCK_COMMIT", to: $0)] } ?? []
        ),
        // The server, in layers: each target names below the targets it may use, and uses nothing else
        // (docs/architecture.md has the same graph as a table; Tests/Contract/test_architecture.py holds the
        // two together and checks every file's imports against them). Which target to open:
        //   /nms/mobile/1/register*.jssp, /r, /nl/jsp/ping.jsp (the SDKs)   CampaignMockMobile
        //   /nl/jsp/soaprouter.jsp, schemawsdl.jsp, mcPing.jsp              CampaignMockSOAP
        //   /_mock/... (admin API: API/; the console: Console/web/)         CampaignMockAdmin
        //   journaling, faults, waits, metrics, /_mock/stream for all of it CampaignMockRuntime
        //   a push composed, checked, sent to APNs/FCM or to a simulator     CampaignMockPush
        //   the integration checks' rules (/_mock/checks answers from them) CampaignMockChecks
        //   --record, replay, --upstream                                    CampaignMockRecording
        //   SQL, the store, the migrations, the leftover redo log           CampaignMockStorage
        //   the request journal: its files, their format, its index         CampaignMockJournal
        //   JSON, XML, certificates, the access log                         CampaignMockSupport
        //   a request's parsing, headers, routing, middleware, serializing  CampaignMockHTTP
        //   sockets, event loops, TLS, the HTTP/1.1 and HTTP/2 clients      CampaignMockNetwork
        //   logging, clocks, threads, system calls, RFC 3339 times          CampaignMockSystem
        //   settings, flags, which path goes to which endpoint              CampaignMock, CampaignMockCLI

        // The process beneath HTTP: the logger, clocks, threads, system calls and their errors, disk syncs,
        // OpenSSL's error queue, RFC 3339 times, configuration errors. Knows no HTTP and opens no socket.
        .target(name: "CampaignMockSystem", dependencies: ["CLinux", "COpenSSL"], swiftSettings: swiftSettings),
        // HTTP as values, with no socket: requests and responses, headers, the request parser and the response
        // serializer, spooled bodies, the router, handlers and middleware, response streams, Host allow-lists,
        // socket addresses and this machine's interface addresses. May touch only System.
        .target(
            name: "CampaignMockHTTP", dependencies: ["CampaignMockSystem", "CLinux"], swiftSettings: swiftSettings
        ),
        // What touches the network: sockets, pollers, event loops, the HTTP server, TLS (OpenSSL), the blocking
        // HTTP/1.1 client, the event-stream client and the HTTP/2 connection (nghttp2). Only the targets that
        // listen or connect depend on it: Push (APNs, FCM), Recording, the root, the CLI.
        .target(
            name: "CampaignMockNetwork",
            dependencies: ["CampaignMockHTTP", "CampaignMockSystem", "CLinux", "COpenSSL", "CNGHTTP2"],
            swiftSettings: swiftSettings
        ),
        // The values both the server and the test-side client speak: applications, devices, events, pushes.
        // Imports nothing (the client builds with Foundation alone).
        .target(name: "CampaignMockModel", swiftSettings: swiftSettings),
        // Readers and writers that know no Campaign concept: JSON, XML, certificates, the access log, durations.
        .target(
            name: "CampaignMockSupport",
            dependencies: ["CampaignMockSystem", "CampaignMockHTTP", "COpenSSL"],
            swiftSettings: swiftSettings
        ),
        // The request journal: its append-only files and their format, the index of them in memory, the
        // record of a request and the filters and pages it is read by. Knows neither SQLite nor HTTP: the
        // store hands it what a batch journals, and the rows of an older database's journal table.
        .target(
            name: "CampaignMockJournal",
            dependencies: ["CampaignMockModel", "CampaignMockSupport", "CampaignMockSystem"],
            swiftSettings: swiftSettings
        ),
        // SQLite and every statement the server runs: SQLite/, Store/ (with the journal's batches and a
        // leftover redo log), Tracking/ (the tracking id), Query/ (SOAP's queryDef compiled to SQL). Knows no
        // HTTP.
        .target(
            name: "CampaignMockStorage",
            dependencies: [
                "CampaignMockModel", "CampaignMockSupport", "CampaignMockJournal", "CampaignMockSystem", "CSQLite",
            ],
            swiftSettings: swiftSettings
        ),
        // What every endpoint runs through: the pipeline and journal, faults, waits, metrics, the event stream.
        .target(
            name: "CampaignMockRuntime",
            dependencies: [
                "CampaignMockModel", "CampaignMockSupport", "CampaignMockJournal", "CampaignMockStorage",
                "CampaignMockSystem", "CampaignMockHTTP",
            ],
            swiftSettings: swiftSettings
        ),
        // Pushes, from the payload to the device: composing a push's messages for the SDKs (Composing/),
        // checking a payload against APNs, FCM and the SDKs (Checking/), sending through APNs and FCM with the
        // allow-list (Sending/, Providers/), and the simulators and emulators of this machine (Devices/:
        // xcrun and adb, and what a composed message becomes for them). It may use the model, support,
        // storage and the transport (its HTTP/2 and TLS clients), never the runtime or an endpoint target;
        // its status types are what /_mock/info and the console show of sending and of the tools.
        .target(
            name: "CampaignMockPush",
            dependencies: [
                "CampaignMockModel", "CampaignMockSupport", "CampaignMockStorage", "CampaignMockSystem",
                "CampaignMockHTTP", "CampaignMockNetwork", "CLinux",
            ],
            swiftSettings: swiftSettings
        ),
        // The integration checks: rules over the apps' own traffic, fed from the store's committed changes.
        .target(
            name: "CampaignMockChecks",
            dependencies: [
                "CampaignMockModel", "CampaignMockSupport", "CampaignMockJournal", "CampaignMockStorage",
                "CampaignMockSystem",
            ],
            swiftSettings: swiftSettings
        ),
        // The Campaign SDKs' endpoints: registration, tracking, the health pages. Nothing of push.
        .target(
            name: "CampaignMockMobile",
            dependencies: [
                "CampaignMockModel", "CampaignMockSupport", "CampaignMockStorage", "CampaignMockRuntime",
                "CampaignMockSystem", "CampaignMockHTTP",
            ],
            swiftSettings: swiftSettings
        ),
        // The SOAP router acc-js-sdk talks to, with its schema catalogue (Campaign schema documents,
        // embedded in the binary at build time); push for nms:delivery's composed pushes.
        .target(
            name: "CampaignMockSOAP",
            dependencies: [
                "CampaignMockModel", "CampaignMockSupport", "CampaignMockStorage", "CampaignMockRuntime",
                "CampaignMockPush", "CampaignMockSystem", "CampaignMockHTTP",
            ],
            resources: [.embedInCode("Schemas")],
            swiftSettings: swiftSettings
        ),
        // The admin API (`/_mock/`, its OpenAPI description) and the console's web files, embedded; push for
        // composing, checking and sending pushes and for the simulator and emulator routes.
        .target(
            name: "CampaignMockAdmin",
            dependencies: [
                "CampaignMockModel", "CampaignMockSupport", "CampaignMockJournal", "CampaignMockStorage",
                "CampaignMockRuntime", "CampaignMockPush", "CampaignMockSystem", "CampaignMockHTTP",
                "CampaignMockChecks",
            ],
            resources: [.embedInCode("API/openapi.json"), .embedInCode("Console/web")],
            swiftSettings: swiftSettings
        ),
        // Recording exchanges to files, replaying them, and the upstream proxy.
        .target(
            name: "CampaignMockRecording",
            dependencies: [
                "CampaignMockSupport", "CampaignMockSystem", "CampaignMockHTTP", "CampaignMockNetwork",
            ],
            swiftSettings: swiftSettings
        ),
        // The composition root: configuration, and the server built from it.
        .target(
            name: "CampaignMock",
            dependencies: [
                "CampaignMockModel", "CampaignMockSupport", "CampaignMockJournal", "CampaignMockStorage",
                "CampaignMockRuntime", "CampaignMockMobile", "CampaignMockSOAP", "CampaignMockAdmin",
                "CampaignMockRecording", "CampaignMockPush", "CampaignMockSystem", "CampaignMockHTTP",
                "CampaignMockNetwork", "CampaignMockChecks",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "CampaignMockCLI",
            dependencies: serverTargets + [
                "CBuildInfo", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // libFuzzer targets over the readers of untrusted input (`make fuzz`), or a runner for their inputs.
        .executableTarget(
            name: "CampaignMockFuzz", dependencies: serverTargets, path: "Fuzz/CampaignMockFuzz",
            swiftSettings: swiftSettings
        ),
        // The test-side client: Foundation and URLSession only (docs/swift-client.md).
        .target(name: "CampaignMockClient", dependencies: ["CampaignMockModel"], swiftSettings: swiftSettings),
        // Shared by the test targets: a raw-socket HTTP client, temp directories, a process runner.
        .target(
            name: "CampaignMockTestSupport", path: "Tests/CampaignMockTestSupport",
            swiftSettings: swiftSettings
        ),
        // The mock under test, for every test target: the app in process, which no socket reaches
        // (InProcessServer), or behind its listener on a free port (LiveServer).
        .target(
            name: "CampaignMockTesting", dependencies: serverTargets + ["CampaignMockTestSupport"],
            path: "Tests/CampaignMockTesting", swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CampaignMockSystemTests", dependencies: ["CampaignMockSystem"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CampaignMockHTTPTests",
            dependencies: ["CampaignMockHTTP", "CampaignMockSystem", "CampaignMockTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CampaignMockNetworkTests",
            dependencies: ["CampaignMockNetwork", "CampaignMockHTTP", "CampaignMockSystem", "CampaignMockTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CampaignMockTests",
            dependencies: serverTargets + ["CSQLite", "CampaignMockTestSupport", "CampaignMockTesting"],
            swiftSettings: swiftSettings
        ),
        // A URLSession client the HTTPS tests run against the server.
        .executableTarget(name: "URLSessionProbe", path: "Tests/URLSessionProbe", swiftSettings: swiftSettings),
        .testTarget(
            name: "CampaignMockCLITests",
            dependencies: serverTargets + ["CampaignMockCLI", "CampaignMockTestSupport", "URLSessionProbe"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CampaignMockClientTests",
            dependencies: [
                "CampaignMockClient", "CampaignMock", "CampaignMockHTTP", "CampaignMockTestSupport",
                "CampaignMockTesting",
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
