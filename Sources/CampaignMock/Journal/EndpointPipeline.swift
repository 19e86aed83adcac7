import CampaignMockCore

/// Runs the Campaign endpoints (everything outside `/_mock/`): the endpoint decides, then its change
/// and the journal row commit in one transaction, and only then is the response sent. A `200` thus
/// always means "stored", and a refused request changes nothing but the journal.
struct EndpointPipeline: Sendable {
    let store: Store
    let log: AccessLog

    /// A router body that runs `decide` for requests of the endpoint family `endpoint`.
    func route(_ endpoint: String, _ decide: @escaping @Sendable (HTTPRequest) throws -> EndpointResult)
        -> Router.Body
    {
        { request, _, reply in run(endpoint, request, reply, decide) }
    }

    func run(
        _ endpoint: String, _ request: HTTPRequest, _ reply: ReplyChannel,
        _ decide: @Sendable (HTTPRequest) throws -> EndpointResult
    ) {
        let result: EndpointResult
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
        let record = Self.record(request, endpoint: endpoint, result: result)
        store.write { transaction in
            try result.change?(transaction)
            try transaction.appendJournal(record.finished())
        } completion: { outcome in
            switch outcome {
            case .success:
                reply.send(result.response)
                log.record(request, status: result.response.status.code, appKey: result.appKey, reason: result.reason)
            case .failure(let error):
                // Nothing of the change was stored (its savepoint rolled back): say so, and journal that.
                let failure = HTTPError(.internalServerError, "could not store the request: \(error)")
                var failed = record
                failed.status = failure.status.code
                failed.reason = failure.reason
                store.write { [failed] in
                    try $0.appendJournal(failed.finished())
                } completion: { _ in
                    reply.send(failure.response)
                    log.record(request, status: failure.status.code, appKey: result.appKey, reason: failure.reason)
                }
            }
        }
    }

    private static func record(_ request: HTTPRequest, endpoint: String, result: EndpointResult) -> JournalRecord {
        let elapsed = Int64((Clock.monotonicNanoseconds() &- request.receivedAt) / 1000)
        return JournalRecord(
            receivedAtMicros: Clock.wallClockMicroseconds() - elapsed,
            method: request.method.rawValue,
            target: request.target,
            endpoint: endpoint,
            headersJSON: JSONArrays.encodePairs(request.headers.fields.map { ($0.name.rawValue, $0.value) }),
            body: Array(request.body.prefix(JournalEntry.bodyLimit + 1)),
            status: result.response.status.code,
            reason: result.reason,
            appKey: result.appKey,
            durationMicros: 0,
            remoteAddress: request.remoteAddress?.description,
            monotonicStart: request.receivedAt)
    }
}
