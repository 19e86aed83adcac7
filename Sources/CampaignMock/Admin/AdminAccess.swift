import CampaignMockCore

/// Who may call `/_mock/`: clients on loopback when no token is set; with `--admin-token`, any client
/// that sends `Authorization: Bearer <token>`. The SDK endpoints never need it, and neither do the
/// probes `/_mock/health` and `/_mock/ready` (they reveal nothing and must work in containers).
struct AdminAccess: Sendable {
    let token: String?

    /// The console's own files hold no data; the page asks for the token before it reads anything.
    /// Compared directly: the probes are the most frequent admin requests, and hashing every admin path
    /// into a set cost more than these comparisons.
    static func isOpen(_ path: String) -> Bool {
        path == "/_mock/health" || path == "/_mock/ready" || path == "/_mock/ui" || path.hasPrefix("/_mock/ui/")
    }

    /// nil when allowed, else the refusal.
    func refusal(for request: HTTPRequest) -> AdminError? {
        if Self.isOpen(request.path) { return nil }
        guard let token else {
            if request.remoteAddress?.isLoopback ?? true { return nil }
            return AdminError(
                .forbidden, "the admin API answers loopback clients only; start with --admin-token to allow others")
        }
        guard let presented = Self.presentedToken(request) else {
            return AdminError(.unauthorized, "missing 'Authorization: Bearer <token>' (the server has --admin-token)")
        }
        guard Self.constantTimeEqual(Array(presented.utf8), Array(token.utf8)) else {
            return AdminError(.unauthorized, "wrong admin token")
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

    /// Compares without an early exit, so timing does not reveal how much of the token matched.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }
}
