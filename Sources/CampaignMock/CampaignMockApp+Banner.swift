import CampaignMockModel
import CampaignMockPush
import CampaignMockSOAP
import CampaignMockStorage
import CampaignMockSupport

extension CampaignMockApp {
    /// The start-up banner: where to connect (from this machine and from devices), the applications and
    /// their keys, where data lives. `command` is how the user runs this binary, for the hints.
    /// Empty before ``start(at:listener:)``.
    package func banner(command: String = "campaign-mock") -> String {
        guard let addresses else { return "" }
        let baseURL = addresses.baseURL
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
        if addresses.plain != nil { lines.append("  Marketing + tracking host  \(baseURL)") }
        if let httpsURL = addresses.httpsURL { lines.append("  HTTPS                      \(httpsURL)") }
        let devices = addresses.deviceURLs
        if !devices.isEmpty {
            lines.append("  From devices:")
            let urlWidth = devices.map(\.url.count).max() ?? 0
            lines += devices.map { "    \($0.url)\(String(repeating: " ", count: urlWidth - $0.url.count))  \($0.use)" }
        }
        if let authority = certificateAuthority {
            lines.append("  Local CA (SHA-256)         \(authority.fingerprint)")
            lines.append("    kept in \(authority.folder)")
            switch authority.origin {
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
                    "    to use that one here, delete \(authority.folder)/ca-cert.pem and ca-key.pem (devices then trust it instead)"
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
        if sending.apns != nil || sending.fcm != nil {
            let providers = [sending.apns.map { "APNs (\($0))" }, sending.fcm.map { "FCM (project \($0))" }]
                .compactMap { $0 }.joined(separator: " and ")
            lines.append("  Sending to real devices    \(providers)\(sending.autoSend ? ", every composed push" : "")")
            lines.append(
                sending.allowList.isEmpty
                    ? "    allow-list empty (--send-allow): nothing is sent"
                    : "    allow-list \(sending.allowList.joined(separator: ", ")); a pattern other than token: needs the "
                        + "device trusted (console, POST /_mock/devices/TOKEN/trust)")
        }
        if let directory = configuration.recordDirectory {
            lines.append("  Recording into             \(directory)")
            lines.append("    check a server against it: \(command) replay \(directory) --target \(baseURL)")
        }
        lines.append("  Applications (the SDK's integration key is mobileAppUuid):")
        return (lines + list + ["Stop with Ctrl-C."]).joined(separator: "\n")
    }
}
