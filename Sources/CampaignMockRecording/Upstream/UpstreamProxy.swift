import CampaignMockHTTP
import CampaignMockNetwork
package import CampaignMockSupport
package import CampaignMockSystem
import Dispatch

/// `serve --upstream URL`: middleware of the Campaign endpoints (everything outside `/_mock/`) that
/// forwards every request to a real Campaign server and relays its answer as it came. The mock's store is
/// not touched; `/_mock/` is still served here.
package final class UpstreamProxy: Middleware {
    private let upstream: HTTPClient.Endpoint
    private let tls: TLSClientContext?
    private let log: AccessLog
    private let timeoutSeconds: Int
    /// How much of an answer is read, and for how long: a 64 KiB head, a body as large as a request's, and the
    /// timeout for the whole exchange (as for FCM), so a broken upstream costs a request at most that.
    private let limits: HTTPClient.Limits
    /// Forwarding blocks, so it runs here and never on an event loop.
    private let queue = DispatchQueue(label: "campaign-mock.upstream", attributes: .concurrent)

    /// - Parameters:
    ///   - upstream: `http://…` or `https://…`.
    ///   - extraCAFile: more CAs to trust for an https upstream (besides the system's).
    ///   - bodyBytes: the largest answer body relayed (the server's request body limit).
    /// - Throws: ``ConfigurationError`` for a URL or CA file that cannot be used.
    package init(
        upstream: String, extraCAFile: String?, log: AccessLog, bodyBytes: Int = 1 << 20, timeoutSeconds: Int = 30
    ) throws(ConfigurationError) {
        do {
            self.upstream = try HTTPClient.Endpoint(url: upstream, allowHTTPS: true)
        } catch {
            throw ConfigurationError("--upstream: \(error.message)")
        }
        do {
            tls = self.upstream.isSecure ? try TLSClientContext(extraCAFile: extraCAFile) : nil
        } catch {
            throw ConfigurationError("--upstream-ca: \(error)")
        }
        self.log = log
        self.timeoutSeconds = timeoutSeconds
        limits = HTTPClient.Limits(headBytes: 64 << 10, bodyBytes: bodyBytes, seconds: timeoutSeconds)
    }

    /// Answers without `next`: the local endpoints never see the request.
    func handle(_ request: HTTPRequest, reply: ReplyChannel, next: MiddlewareNext) {
        queue.async { [self] in
            let (response, reason) = forward(request)
            log.record(request, status: response.status.code, reason: reason)
            reply.send(response)
        }
    }

    /// The upstream's answer, or a 502 and why.
    private func forward(_ request: HTTPRequest) -> (HTTPResponse, String?) {
        var headers = HTTPHeaders()
        for (name, value) in request.headers where !name.isPerConnection {
            headers.append(name, value)
        }
        do {
            let answer = try HTTPClient.send(
                request.method, request.target, to: upstream, headers: headers, body: request.body,
                timeoutSeconds: timeoutSeconds, tls: tls, limits: limits)
            // A final answer is 200-599 (the informational ones before it are read past; 101 cannot be relayed).
            guard (200...599).contains(answer.status) else {
                let reason = "upstream \(upstream.host):\(upstream.port): answered status \(answer.status)"
                return (HTTPError(.badGateway, reason).response, reason)
            }
            var relayed = HTTPHeaders()
            for (name, value) in answer.headers where !name.isPerConnection {
                relayed.append(name, value)
            }
            return (HTTPResponse(status: HTTPStatus(code: answer.status), headers: relayed, body: answer.body), nil)
        } catch {
            let reason = "upstream \(upstream.host):\(upstream.port): \(error.message)"
            return (HTTPError(.badGateway, reason).response, reason)
        }
    }
}
