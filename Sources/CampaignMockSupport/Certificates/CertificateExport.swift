/// The local CA in the forms a simulator, an emulator or a phone needs (`campaign-mock ca export`).
package enum CertificateExport {
    package enum Format: String, Sendable, CaseIterable {
        /// PEM, for `xcrun simctl keychain booted add-root-cert`, curl `--cacert`, Android `res/raw`.
        case pem
        /// DER (`.cer`), for opening on a device or in Keychain Access.
        case der
        /// An iOS configuration profile that installs the CA.
        case mobileconfig
        /// An Android `network_security_config.xml` and the CA file for `res/raw`.
        case androidNSC = "android-nsc"
    }

    /// One file to write: a path relative to the output, and its bytes.
    package struct File: Sendable, Equatable {
        package let path: String
        package let bytes: [UInt8]
    }

    /// The files of `format` for the CA `authority`. Single-file formats have an empty path.
    package static func files(_ format: Format, authority: LocalCertificateAuthority) -> [File] {
        switch format {
        case .pem:
            return [File(path: "", bytes: authority.certificatePEM)]
        case .der:
            return [File(path: "", bytes: authority.certificateDER)]
        case .mobileconfig:
            return [File(path: "", bytes: Array(mobileconfig(authority).utf8))]
        case .androidNSC:
            return [
                File(path: "xml/network_security_config.xml", bytes: Array(networkSecurityConfig.utf8)),
                File(path: "raw/campaign_mock_ca.pem", bytes: authority.certificatePEM),
            ]
        }
    }

    /// Debug builds trust the CA for every host; release builds are untouched.
    static let networkSecurityConfig = """
        <?xml version="1.0" encoding="utf-8"?>
        <!-- campaign-mock: debug builds trust its local CA (res/raw/campaign_mock_ca.pem), the CAs a developer
             installed on their own emulator or phone (user: each developer's own campaign-mock CA, docs/https.md)
             and the system's. In AndroidManifest.xml: <application android:networkSecurityConfig="@xml/network_security_config" ...> -->
        <network-security-config>
            <debug-overrides>
                <trust-anchors>
                    <certificates src="@raw/campaign_mock_ca" />
                    <certificates src="user" />
                    <certificates src="system" />
                </trust-anchors>
            </debug-overrides>
        </network-security-config>

        """

    /// An Apple configuration profile with one `com.apple.security.root` payload. Its UUIDs derive from
    /// the CA fingerprint, so exporting the same CA twice gives the same profile.
    static func mobileconfig(_ authority: LocalCertificateAuthority) -> String {
        let hex = authority.fingerprint.replacingColons()
        let payloadUUID = uuid(from: hex, offset: 0)
        let profileUUID = uuid(from: hex, offset: 32)
        let base64 = Base64.encode(authority.certificateDER)
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
                <key>PayloadContent</key>
                <array>
                    <dict>
                        <key>PayloadCertificateFileName</key>
                        <string>campaign-mock-ca.cer</string>
                        <key>PayloadContent</key>
                        <data>\(base64)</data>
                        <key>PayloadDescription</key>
                        <string>Trusts the campaign-mock local CA, so apps reach campaign-mock over HTTPS.</string>
                        <key>PayloadDisplayName</key>
                        <string>\(LocalCertificateAuthority.name)</string>
                        <key>PayloadIdentifier</key>
                        <string>dev.campaign-mock.ca.\(hex.prefix(16).lowercased())</string>
                        <key>PayloadType</key>
                        <string>com.apple.security.root</string>
                        <key>PayloadUUID</key>
                        <string>\(payloadUUID)</string>
                        <key>PayloadVersion</key>
                        <integer>1</integer>
                    </dict>
                </array>
                <key>PayloadDescription</key>
                <string>Installs the campaign-mock local CA. After installing, turn on full trust in Settings &gt; General &gt; About &gt; Certificate Trust Settings.</string>
                <key>PayloadDisplayName</key>
                <string>\(LocalCertificateAuthority.name)</string>
                <key>PayloadIdentifier</key>
                <string>dev.campaign-mock.profile.\(hex.prefix(16).lowercased())</string>
                <key>PayloadRemovalDisallowed</key>
                <false/>
                <key>PayloadType</key>
                <string>Configuration</string>
                <key>PayloadUUID</key>
                <string>\(profileUUID)</string>
                <key>PayloadVersion</key>
                <integer>1</integer>
            </dict>
            </plist>

            """
    }

    /// A version-4-shaped UUID from 32 hex digits of the fingerprint.
    private static func uuid(from hex: String, offset: Int) -> String {
        var digits = Array(hex.uppercased().dropFirst(offset).prefix(32))
        while digits.count < 32 { digits.append("0") }
        digits[12] = "4"
        digits[16] = "8"
        let text = String(digits)
        let cuts = [8, 12, 16, 20]
        var parts: [String] = []
        var start = text.startIndex
        for cut in cuts {
            let end = text.index(text.startIndex, offsetBy: cut)
            parts.append(String(text[start..<end]))
            start = end
        }
        parts.append(String(text[start...]))
        return parts.joined(separator: "-")
    }
}

extension String {
    fileprivate func replacingColons() -> String {
        String(filter { $0 != ":" })
    }
}
