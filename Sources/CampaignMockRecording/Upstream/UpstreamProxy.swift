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
    /// Forwarding blocks, so it runs here and never on an event loop.
    private let queue = DispatchQueue(label: "campaign-mock.upstream", attributes: .concurrent)

    /// - Parameters:
    ///   - upstream: `http://…` or `https://…`.
    ///   - extraCAFile: more CAs to trust for an https upstream (besides the system's).
    /// - Throws: ``ConfigurationError`` for a URL or CA file that cannot be used.
    package init(upstream: String, extraCAFile: String?, log: AccessLog, timeoutSeconds: Int = 30)
        throws(ConfigurationError)
    {
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
                timeoutSeconds: timeoutSeconds, tls: tls)
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
