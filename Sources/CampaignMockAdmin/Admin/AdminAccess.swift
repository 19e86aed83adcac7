import CampaignMockCore
import CampaignMockSupport

/// Who may call `/_mock/` (docs/security.md):
/// - a request that presents the right `--admin-token` (`Authorization: Bearer <token>`) always may;
/// - otherwise its `Host` must be one the server answers to (``HostAllowList``: DNS rebinding), its
///   client must be on loopback when no token is set, and it must present the token when one is;
/// - a request that changes state must not come from another site's page (`Origin`, `Sec-Fetch-Site`:
///   a page elsewhere could otherwise post to the mock with `fetch(..., {mode: "no-cors"})`).
///
/// The SDK endpoints never need any of this, and neither do the probes `/_mock/health` and
/// `/_mock/ready` (they reveal nothing and must work in containers, whatever `Host` they send). The
/// console's own files hold no data: they need the right `Host`, not the token (the page asks for it).
package struct AdminAccess: Sendable {
    let token: String?
    let hosts: HostAllowList

    package init(token: String?, hosts: HostAllowList = HostAllowList(names: [])) {
        self.token = token
        self.hosts = hosts
    }

    /// Compared directly: the probes are the most frequent admin requests, and hashing every admin path
    /// into a set cost more than these comparisons.
    static func isProbe(_ path: String) -> Bool {
        path == "/_mock/health" || path == "/_mock/ready"
    }

    static func isConsoleFile(_ path: String) -> Bool {
        path == "/_mock/ui" || path.hasPrefix("/_mock/ui/")
    }

    /// nil when allowed, else the refusal.
    func refusal(for request: HTTPRequest) -> AdminError? {
        if Self.isProbe(request.path) { return nil }
        let presented = Self.presentedToken(request)
        if let token, let presented {
            guard constantTimeEqual(Array(presented.utf8), Array(token.utf8)) else {
                return AdminError(.unauthorized, "wrong admin token")
            }
            return nil
        }
        let host = request.headers[.host]
        guard hosts.allows(host) else {
            let name = HostAllowList.hostname(of: host ?? "")
            return AdminError(
                .forbidden,
                "the admin API and console do not answer to Host '\(name)' (a guard against DNS rebinding); "
                    + "if you reach campaign-mock by that name, start it with --allowed-host \(name)")
        }
        if Self.isConsoleFile(request.path) { return nil }
        if token != nil {
            return AdminError(.unauthorized, "missing 'Authorization: Bearer <token>' (the server has --admin-token)")
        }
        guard request.remoteAddress?.isLoopback ?? true else {
            return AdminError(
                .forbidden, "the admin API answers loopback clients only; start with --admin-token to allow others")
        }
        if let site = Self.crossSiteCaller(request) {
            return AdminError(
                .forbidden,
                "\(request.method) \(request.path) refused: it comes from a page on \(site); the admin API changes "
                    + "state only for its own console and for clients that are not browsers (or that send the "
                    + "--admin-token)")
        }
        return nil
    }

    /// The other site a state-changing request comes from, or nil when it comes from the console's own
    /// origin or from a client that is not a browser (no `Origin`, no `Sec-Fetch-Site`). Reads are left
    /// alone: a page elsewhere cannot read the answer (no CORS headers), and the `Host` check stops
    /// DNS rebinding.
    private static func crossSiteCaller(_ request: HTTPRequest) -> String? {
        switch request.method {
        case .get, .head, .options: return nil
        default: break
        }
        let origin = request.headers[HTTPHeaderName(rawValue: "Origin")]
        if let site = request.headers[HTTPHeaderName(rawValue: "Sec-Fetch-Site")]?.lowercased(),
            site != "same-origin" && site != "none"
        {
            return origin ?? "another site (Sec-Fetch-Site: \(site))"
        }
        guard let origin else { return nil }
        // RFC 6454 §7: `scheme "://" host [ ":" port ]`, or `null` for an opaque origin.
        let parts = origin.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].hasSuffix(":"), parts[1].isEmpty else { return origin }
        return parts[2].lowercased() == request.headers[.host]?.lowercased() ? nil : origin
    }

    /// The token a request presents: `Authorization: Bearer <token>`, or, for `GET /_mock/stream` only,
    /// `?access_token=` (a browser's EventSource cannot send headers).
    private static func presentedToken(_ request: HTTPRequest) -> String? {
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            return String(header.dropFirst(7))
        }
        guard request.path == "/_mock/stream" else { return nil }
        return PercentEncoding.queryItems(request.query)?.first { $0.name == "access_token" }?.value
    }
}
