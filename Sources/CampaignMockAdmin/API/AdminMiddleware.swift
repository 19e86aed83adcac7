package import CampaignMockHTTP
import CampaignMockRuntime
import CampaignMockSupport
import CampaignMockSystem

/// Logs every answer of its group to the access log and counts it in `/_mock/metrics` under one endpoint
/// label, with the time from the request's arrival.
struct AnswerLogging: Middleware {
    let endpoint: String
    let log: AccessLog
    let metrics: Metrics

    func handle(_ request: HTTPRequest, reply: ReplyChannel, next: MiddlewareNext) {
        next(
            request,
            ReplyChannel { [log, metrics, endpoint] answer in
                let status: Int
                switch answer {
                case .response(let response): status = response.status.code
                case .stream(let head, _): status = head.status.code
                case .drop, .reset: status = 0
                }
                if status != 0 {
                    log.record(request, status: status)
                    let seconds = Double(Clock.monotonicNanoseconds() &- request.receivedAt) / 1e9
                    metrics.recordRequest(endpoint: endpoint, status: status, seconds: seconds)
                }
                reply.send(answer)
            })
    }
}

extension AdminError {
    /// The admin API's error format: `{"error": "…"}` with the error's status (and headers, such as a
    /// `405`'s `Allow`); an error that is not an HTTP error is a `500`. Errors that carry a response of
    /// their own get it.
    package static func response(for error: any Error) -> HTTPResponse {
        switch error {
        case let error as AdminError:
            return error.response
        case let error as HTTPError:
            var response = AdminError(error.status, error.reason).response
            for (name, value) in error.headers { response.headers.set(name, value) }
            return response
        case let error as any HTTPResponseError:
            return error.response
        default:
            return AdminError(.internalServerError, "\(error)").response
        }
    }
}

extension AdminAccess: Middleware {
    /// Refuses a request that may not use the admin API; passes the others on.
    package func handle(_ request: HTTPRequest, reply: ReplyChannel, next: MiddlewareNext) throws {
        try checkHead(request)
        next(request, reply)
    }

    /// Refuses on the head alone (before the body of an import is read), and again on the whole request.
    package func checkHead(_ request: HTTPRequest) throws {
        if let refusal = refusal(for: request) { throw refusal }
    }
}
