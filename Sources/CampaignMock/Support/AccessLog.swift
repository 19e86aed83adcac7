import CampaignMockCore

/// One log line per request: method, target, status, duration, app key, and the reason of a failure.
struct AccessLog: Sendable {
    let logger: Logger

    func record(_ request: HTTPRequest, status: Int, appKey: String? = nil, reason: String? = nil) {
        guard logger.isEnabled(.info) else { return }
        let micros = (Clock.monotonicNanoseconds() &- request.receivedAt) / 1000
        let duration = "\(micros / 1000).\(String(micros % 1000 / 10).leftPadded(2))ms"
        let remote = request.remoteAddress?.description ?? "-"
        let message = "\(request.method) \(request.target) \(status) \(duration)"
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
}

extension String {
    func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        String(repeating: pad, count: max(0, width - count)) + self
    }
}
