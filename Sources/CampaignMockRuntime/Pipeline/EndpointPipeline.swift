package import CampaignMockHTTP
import CampaignMockJournal
package import CampaignMockModel
package import CampaignMockStorage
package import CampaignMockSupport
import CampaignMockSystem
import Dispatch

/// Runs the Campaign endpoints (everything outside `/_mock/`):
///
/// 1. a fault rule may fire first (delay, answer for the endpoint, drop or reset the connection);
/// 2. the endpoint decides: the answer, and the change to store;
/// 3. the change and the journal entry are written in one batch of the store's writer (the entry to the
///    journal's file, then the change's commit), and only then is the answer sent;
/// 4. metrics are counted. The waiters and the event stream learn of the change from the store's sink,
///    before the answer is sent (see `CommittedChange`).
///
/// A `200` thus always means "stored", and a refused request changes nothing but the journal.
package struct EndpointPipeline: Sendable {
    /// Who a request is about, for fault rules that match an app key or a token.
    package typealias Identify = @Sendable (HTTPRequest) -> (appKey: String?, token: String?)
    package typealias Decide = @Sendable (HTTPRequest) throws -> EndpointResult

    let store: Store
    let log: AccessLog
    let faults: FaultRegistry
    let metrics: Metrics
    let waits: WaitRegistry
    let stream: EventHub

    /// A router body for the endpoint family `endpoint`.
    package func route(
        _ endpoint: EndpointFamily, identify: @escaping Identify = { _ in (nil, nil) }, _ decide: @escaping Decide
    )
        -> Router.Body
    {
        { request, _, reply in run(endpoint, request, reply, identify: identify, decide) }
    }

    /// A router body for an endpoint that reads its request once, into `Input`, for both the fault rules
    /// (`identify`) and the answer (`decide`).
    package func route<Input: Sendable>(
        _ endpoint: EndpointFamily, read: @escaping @Sendable (HTTPRequest) -> Input,
        identify: @escaping @Sendable (Input) -> (appKey: String?, token: String?),
        decide: @escaping @Sendable (HTTPRequest, Input) throws -> EndpointResult
    ) -> Router.Body {
        { request, _, reply in
            let input = read(request)
            let decideWithInput: Decide = { request in try decide(request, input) }
            run(endpoint, request, reply, identify: { _ in identify(input) }, decideWithInput)
        }
    }

    package func run(
        _ endpoint: EndpointFamily, _ request: HTTPRequest, _ reply: ReplyChannel,
        identify: @escaping Identify = { _ in (nil, nil) },
        _ decide: @escaping Decide
    ) {
        let subject = FaultRegistry.Subject(
            endpoint: endpoint, method: request.method.rawValue,
            identity: { identify(request) })
        guard let effect = faults.fire(for: subject) else {
            return handle(endpoint, request, reply, decide, fault: nil)
        }
        metrics.recordFault(ruleID: effect.ruleID)
        if let rule = faults.list().first(where: { $0.rule.id == effect.ruleID }) {
            stream.publish(.fault, rule, facts: [.endpoint: endpoint.rawValue])
        }
        let act: @Sendable () -> Void = {
            switch effect.outcome {
            case .proceed:
                handle(endpoint, request, reply, decide, fault: effect)
            case .respond(let status, let body):
                let result = Self.failed(by: effect, .text(HTTPStatus(code: status), body))
                commit(endpoint, request, result, reply: .response(result.response), reply)
            case .drop:
                let dropped = HTTPResponse(status: HTTPStatus(code: 0, reasonPhrase: "dropped"))
                commit(endpoint, request, Self.failed(by: effect, dropped), reply: .drop, reply)
            case .reset:
                let reset = HTTPResponse(status: HTTPStatus(code: 0, reasonPhrase: "reset"))
                commit(endpoint, request, Self.failed(by: effect, reset), reply: .reset, reply)
            }
        }
        if effect.delayMs > 0 {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(effect.delayMs), execute: act)
        } else {
            act()
        }
    }

    /// A request a fault rule failed, answered `response`.
    private static func failed(by effect: FaultEffect, _ response: HTTPResponse) -> EndpointResult {
        var result = EndpointResult(response: response, reason: effect.description)
        result.fault = effect.fired
        return result
    }

    private func handle(
        _ endpoint: EndpointFamily, _ request: HTTPRequest, _ reply: ReplyChannel, _ decide: Decide,
        fault: FaultEffect?
    ) {
        var result: EndpointResult
        do {
            result = try decide(request)
        } catch let error as HTTPError {
            result = .refused(error)
        } catch let error as any HTTPResponseError {
            result = EndpointResult(
                response: error.response, reason: String(decoding: error.response.body, as: UTF8.self))
        } catch {
            result = .refused(HTTPError(.internalServerError, "internal error: \(error)"))
        }
        if let fault {
            let note = fault.description
            result.reason = result.reason.map { "\(note); \($0)" } ?? note
            result.fault = fault.fired
        }
        commit(endpoint, request, result, reply: .response(result.response), reply)
    }

    /// Stores the change and the journal entry in one job, then sends `answer`.
    private func commit(
        _ endpoint: EndpointFamily, _ request: HTTPRequest, _ result: EndpointResult, reply answer: HTTPReply,
        _ reply: ReplyChannel
    ) {
        let record = Self.record(request, endpoint: endpoint, result: result)
        // The job keeps only the change, not a copy of the whole result.
        let change = result.change
        store.write { transaction in
            try change?(transaction)
            transaction.appendJournal(record.finished())
        } completion: { outcome in
            switch outcome {
            case .success:
                reply.send(answer)
                finish(endpoint, request, result, status: result.response.status.code)
            case .failure(let error):
                // Nothing of the change was stored (its savepoint rolled back): say so, and journal that.
                let failure = HTTPError(.internalServerError, "could not store the request: \(error)")
                var failed = record
                failed.status = failure.status.code
                failed.reason = failure.reason
                failed.responseHeadersJSON = JSONArrays.encode(failure.response.headers)
                failed.responseBody = failure.response.body
                // The answer is the store's, not the endpoint's nor a fault rule's.
                failed.fact = RequestFact(endpoint: endpoint)
                store.write { [failed] in
                    $0.appendJournal(failed.finished())
                } completion: { _ in
                    reply.send(failure.response)
                    var refused = result
                    refused.reason = failure.reason
                    finish(endpoint, request, refused, status: failure.status.code, stored: false)
                }
            }
        }
    }

    /// The access log's line and the metrics of an answered request; `stored` is false when the store could
    /// not keep what the endpoint decided (the answer is then the store's 500).
    private func finish(
        _ endpoint: EndpointFamily, _ request: HTTPRequest, _ result: EndpointResult, status: Int, stored: Bool = true
    ) {
        log.record(request, status: status, appKey: result.appKey, reason: result.reason)
        let seconds = Double(Clock.monotonicNanoseconds() &- request.receivedAt) / 1e9
        metrics.recordRequest(endpoint: endpoint.rawValue, status: status, seconds: seconds)
        guard endpoint.isRegistration else { return }
        let outcome: Metrics.RegistrationOutcome =
            switch (status, stored, result.fault, result.refusal) {
            case (200, true, _, _): .accepted
            case (_, false, _, _): .storeError
            case (_, _, .failed?, _): .fault
            case (_, _, _, let refusal?): .refused(refusal)
            default: .status(status)
            }
        metrics.recordRegistration(outcome)
    }

    private static func record(_ request: HTTPRequest, endpoint: EndpointFamily, result: EndpointResult)
        -> JournalRecord
    {
        let elapsed = Int64((Clock.monotonicNanoseconds() &- request.receivedAt) / 1000)
        var record = JournalRecord(
            receivedAtMicros: Clock.wallClockMicroseconds() - elapsed,
            method: request.method.rawValue,
            target: request.target,
            endpoint: endpoint.rawValue,
            headersJSON: JSONArrays.encode(request.headers),
            body: Array(request.body.prefix(JournalEntry.bodyLimit + 1)),
            status: result.response.status.code,
            reason: result.reason,
            appKey: result.appKey,
            durationMicros: 0,
            remoteAddress: request.remoteAddress?.description,
            responseHeadersJSON: JSONArrays.encode(result.response.headers),
            responseBody: Array(result.response.body.prefix(JournalEntry.bodyLimit + 1)),
            monotonicStart: request.receivedAt)
        record.fact = RequestFact(endpoint: endpoint, fault: result.fault, refusal: result.refusal)
        return record
    }

    package init(
        store: Store, log: AccessLog, faults: FaultRegistry, metrics: Metrics, waits: WaitRegistry, stream: EventHub
    ) {
        self.store = store
        self.log = log
        self.faults = faults
        self.metrics = metrics
        self.waits = waits
        self.stream = stream
    }
}
