package import CampaignMockHTTP
import CampaignMockSupport

/// Who may call `/_mock/` (docs/security.md):
/// - a request that presents the right `--admin-token` (`Authorization: Bearer <token>`) always may;
/// - otherwise its `Host` must be one the server answers to (``HostAllowList``: DNS rebinding), its
///   client must be on loopback when no token is set, and it must present the token when one is;
/// - a request must not come from another site's page (``HTTPRequest/crossSiteOrigin``: `Origin`,
///   `Sec-Fetch-Site`). A page elsewhere cannot read an answer (no CORS headers), but it could post to the
///   mock with `fetch(..., {mode: "no-cors"})` or a form, and even a GET (an `<img>`) runs `xcrun` or
///   `adb` (`/_mock/simulators`) or reads the whole store (`/_mock/state`).
///
/// It is decided on the request's head (``Middleware/checkHead(_:)``), before a large body is read or
/// `100 Continue` is sent, and again on the complete request.
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
        if let refusal = hosts.refusal(host: request.headers[.host], "the admin API and console do not answer to") {
            return AdminError(.forbidden, refusal)
        }
        if Self.isConsoleFile(request.path) { return nil }
        if token != nil {
            return AdminError(.unauthorized, "missing 'Authorization: Bearer <token>' (the server has --admin-token)")
        }
        guard request.remoteAddress?.isLoopback ?? true else {
            return AdminError(
                .forbidden, "the admin API answers loopback clients only; start with --admin-token to allow others")
        }
        if let site = request.crossSiteOrigin {
            return AdminError(
                .forbidden,
                "\(request.method) \(request.path) refused: it comes from a page on \(site); the admin API answers "
                    + "its own console, a URL opened by hand, and clients that are not browsers (or that send the "
                    + "--admin-token)")
        }
        return nil
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
