package import CampaignMockHTTP
package import CampaignMockSystem

/// One log line per request: method, target, status, duration, app key, and the reason of a failure. The
/// target, the key and the reason come from the client: each is cut at ``ClientText/logBytes`` bytes (and
/// says how long it was), so a request of a megabyte makes a line of a few kilobytes at most.
package struct AccessLog: Sendable {
    let logger: Logger

    package func record(_ request: HTTPRequest, status: Int, appKey: String? = nil, reason: String? = nil) {
        guard logger.isEnabled(.info) else { return }
        let micros = (Clock.monotonicNanoseconds() &- request.receivedAt) / 1000
        let duration = "\(micros / 1000).\(String(micros % 1000 / 10).leftPadded(2))ms"
        let remote = request.remoteAddress?.description ?? "-"
        let message = "\(request.method) \(ClientText.capped(Self.redacted(request.target))) \(status) \(duration)"
        let appKey = appKey.map { ClientText.capped($0) }
        let reason = reason.map { ClientText.capped($0) }
        switch (appKey, reason) {
        case (let app?, let reason?):
            logger.info(message, ["app": app, "remote": remote, "reason": reason])
        case (let app?, nil):
            logger.info(message, ["app": app, "remote": remote])
        case (nil, let reason?):
            logger.info(message, ["remote": remote, "reason": reason])
        case (nil, nil):
            logger.info(message, ["remote": remote])
        }
    }

    package init(
        logger: Logger
    ) {
        self.logger = logger
    }
}

extension AccessLog {
    /// Query parameters whose values are secrets: never printed.
    private static let secretParameters = ["access_token"]

    /// `target` with the value of every secret query parameter replaced by `REDACTED`, whatever its
    /// case or encoding (`/_mock/stream?access_token=REDACTED`). Headers are never logged.
    package static func redacted(_ target: String) -> String {
        guard let question = target.firstIndex(of: "?") else { return target }
        let query = target[target.index(after: question)...]
        guard query.lowercased().contains("token") else { return target }
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
            let name = part.prefix { $0 != "=" }
            let decoded = PercentEncoding.decode(String(name)) ?? String(name)
            return secretParameters.contains(decoded.lowercased()) ? "\(name)=REDACTED" : String(part)
        }
        return target[...question] + parts.joined(separator: "&")
    }
}

extension String {
    package func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        String(repeating: pad, count: max(0, width - count)) + self
    }
}
