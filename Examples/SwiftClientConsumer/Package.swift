// swift-tools-version:6.0
// An app's test package as it depends on campaign-mock (docs/swift-client.md), here by path so that this
// repository's own build checks it: `make test` builds it, and Tests/Contract/test_swift_consumer.py
// checks that only the client and its model compile for it (no SQLite, OpenSSL, nghttp2, nor any server
// target), with the server's -dev packages out of sight.
import PackageDescription

let package = Package(
    name: "SwiftClientConsumer",
    platforms: [.macOS(.v15), .iOS(.v15)],
    dependencies: [
        // An app writes .package(url: "https://github.com/OWNER/campaign-mock", from: "0.2.0").
        .package(name: "campaign-mock", path: "../..")
    ],
    targets: [
        .testTarget(
            name: "ConsumerUITests",
            dependencies: [.product(name: "CampaignMockClient", package: "campaign-mock")]
        )
    ],
    swiftLanguageModes: [.v6]
)
