import ArgumentParser
import CampaignMockSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `campaign-mock ca …`: the local CA behind `serve --tls auto`.
struct CertificateAuthorityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "The local certificate authority used by serve --tls auto.",
        discussion:
            "One CA per user, shared by every data directory, so a device trusts it once. It is kept in "
            + "$CAMPAIGN_MOCK_CAROOT, else ~/Library/Application Support/campaign-mock/ca (macOS) or "
            + "${XDG_DATA_HOME:-~/.local/share}/campaign-mock/ca. A CA of one's own (ca-cert.pem and ca-key.pem) "
            + "put there is used as it is.",
        subcommands: [Export.self, Path.self]
    )

    /// The CA folder the environment names, or the failure that says which variable to set.
    static func folder() throws -> String {
        guard let folder = CertificateAuthorityFolder.path(environment: ProcessInfo.processInfo.environment) else {
            throw CommandFailure(message: "error: \(CertificateAuthorityFolder.missing)", code: 1)
        }
        return folder
    }

    /// `campaign-mock ca path`, as `mkcert -CAROOT`.
    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "path",
            abstract: "Print the folder of the local CA ($CAMPAIGN_MOCK_CAROOT, or the per-user default)."
        )

        func run() throws {
            let folder = try CertificateAuthorityCommand.folder()
            Output.standardOutput("\(folder)")
        }
    }

    /// `campaign-mock ca export`.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the local CA in the form a simulator, an emulator or a phone needs.",
            discussion: """
                pem           PEM: xcrun simctl keychain booted add-root-cert FILE; curl --cacert FILE
                der           DER (.cer): open on a device or in Keychain Access
                mobileconfig  an iOS configuration profile that installs the CA
                android-nsc   needs --out DIR: writes DIR/xml/network_security_config.xml and
                              DIR/raw/campaign_mock_ca.pem (DIR is the debug build's app/src/debug/res)
                The CA is the one serve --tls auto uses (campaign-mock ca path prints its folder); it is made on
                first use, so export before the first serve works. A running server hands out its own at
                GET /_mock/ca?format=pem|der|mobileconfig.
                """
        )

        /// What goes wrong when the app has a network security config of its own (docs/https.md): a
        /// `res/xml/network_security_config.xml` in its main source set is hidden by the debug one (its rules
        /// are gone from debug builds); a manifest naming another file makes the manifest merger fail without
        /// `tools:replace`. Nil when `out` is not a debug source set's `res` or the app has neither.
        static func ownConfigClash(debugResources out: String) -> String? {
            let trimmed = out.hasSuffix("/") ? String(out.dropLast()) : out
            guard trimmed.hasSuffix("src/debug/res") else { return nil }
            let main = String(trimmed.dropLast("debug/res".count)) + "main"
            var words: [String] = []
            if FileManager.default.fileExists(atPath: main + "/res/xml/network_security_config.xml") {
                words.append(
                    "warning: \(main)/res/xml/network_security_config.xml exists: the debug file of the same name "
                        + "replaces it in debug builds, and its rules are gone there. Copy its <domain-config> and "
                        + "<base-config> into the debug file, next to the <debug-overrides> written here (docs/https.md)."
                )
            }
            if let manifest = FileManager.default.contents(atPath: main + "/AndroidManifest.xml"),
                let text = String(data: manifest, encoding: .utf8),
                let named = text.components(separatedBy: #"android:networkSecurityConfig=""#).dropFirst().first?
                    .prefix(while: { $0 != "\"" }),
                named != "@xml/network_security_config"
            {
                words.append(
                    "warning: \(main)/AndroidManifest.xml names android:networkSecurityConfig=\"\(named)\": the manifest merger refuses a second "
                        + "value. In the debug manifest write tools:replace=\"android:networkSecurityConfig\" on "
                        + "<application> (with xmlns:tools=\"http://schemas.android.com/tools\"), and copy that file's "
                        + "rules into the debug one (docs/https.md).")
            }
            return words.isEmpty ? nil : words.joined(separator: "\n")
        }

        @Option(help: "pem, der, mobileconfig or android-nsc.")
        var format: String = "pem"

        @Option(help: "File (or directory for android-nsc) to write; standard output when left out.")
        var out: String?

        @Option(
            name: .customLong("data-dir"),
            help: "A data directory whose tls/ may still hold a CA of an older version [env: CAMPAIGN_MOCK_DATA_DIR].")
        var dataDir: String?

        func run() throws {
            guard let format = CertificateExport.Format(rawValue: format) else {
                let known = CertificateExport.Format.allCases.map(\.rawValue).joined(separator: ", ")
                throw CommandFailure(message: "error: --format must be one of \(known)", code: 2)
            }
            let directory =
                (dataDir ?? ProcessInfo.processInfo.environment["CAMPAIGN_MOCK_DATA_DIR"] ?? ".campaign-mock")
            let folder = try CertificateAuthorityCommand.folder()
            let authority: LocalCertificateAuthority
            do {
                authority = try LocalCertificateAuthority(folder: folder, olderFolder: directory + "/tls")
            } catch {
                throw CommandFailure(message: "error: \(error)", code: 1)
            }
            let files = CertificateExport.files(format, authority: authority)
            if format == .androidNSC {
                guard let out else { throw CommandFailure(message: "error: android-nsc needs --out DIR", code: 2) }
                for file in files { try write(file.bytes, to: out + "/" + file.path) }
                let inResources = out.split(separator: "/").last == "res"
                Output.standardError(
                    "Wrote \(out)/xml/network_security_config.xml and \(out)/raw/campaign_mock_ca.pem.\n"
                        + (inResources
                            ? ""
                            : "They belong in the debug build's resources: move xml/ and raw/ into app/src/debug/res/.\n")
                        + "Then add android:networkSecurityConfig=\"@xml/network_security_config\" to <application> in "
                        + "app/src/debug/AndroidManifest.xml.")
                if let clash = Self.ownConfigClash(debugResources: out) { Output.standardError("\(trusted: clash)") }
                return
            }
            guard let out else {
                if format == .der && SystemCalls.standardOutputIsTerminal {
                    throw CommandFailure(
                        message: "error: DER is binary and standard output is a terminal: "
                            + "add --out campaign-mock-ca.cer (or redirect: > campaign-mock-ca.cer)",
                        code: 2)
                }
                Output.standardOutputBytes(files[0].bytes)
                return
            }
            try write(files[0].bytes, to: out)
            Output.standardError("Wrote \(out) (the CA in \(authority.folder), SHA-256 \(authority.fingerprint)).")
        }

        private func write(_ bytes: [UInt8], to path: String) throws {
            do {
                let url = URL(fileURLWithPath: path)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: url, options: .atomic)
            } catch {
                throw CommandFailure(message: "error: cannot write \(path): \(error)", code: 1)
            }
        }
    }
}
