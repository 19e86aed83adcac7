public import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One event of `GET /_mock/stream`: its type (`registration`, `device`, `receive`, `open`, `request`, `push`,
/// `fault`, `app`, `reset`, `gap`, …), its id and its data, the item as JSON.
public struct StreamEvent: Sendable, Equatable {
    public let id: String?
    public let type: String
    public let data: Data

    /// The type, when this version of the client knows it.
    public var kind: StreamEventType? { StreamEventType(rawValue: type) }

    /// The data as `T` (``Registration`` for `registration`, ``TrackingEvent`` for `receive` and `open`,
    /// ``RequestSummary`` for `request`, ``Device`` for `device`, ``ComposedPush`` for `push`).
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }
}

extension CampaignMockClient {
    /// The server's events as they happen, from now on, of `types` (all when empty) and of `app`. The
    /// sequence ends when the server stops or cuts a reader that fell too far behind; cancelling the task
    /// that iterates it closes the connection.
    public func stream(types: Set<StreamEventType> = [], app: String? = nil)
        -> AsyncThrowingStream<StreamEvent, any Error>
    {
        stream(typeNames: Set(types.map(\.rawValue)), app: app)
    }

    /// The same, with the types by name.
    @available(*, deprecated, message: "name the types with StreamEventType: stream(types: [.receive, .open])")
    public func stream(types: Set<String>, app: String? = nil) -> AsyncThrowingStream<StreamEvent, any Error> {
        stream(typeNames: types, app: app)
    }

    private func stream(typeNames types: Set<String>, app: String?) -> AsyncThrowingStream<StreamEvent, any Error> {
        var query: [URLQueryItem] = []
        if !types.isEmpty { query.append(URLQueryItem(name: "type", value: types.sorted().joined(separator: ","))) }
        if let app { query.append(URLQueryItem(name: "app", value: app)) }
        if let adminToken { query.append(URLQueryItem(name: "access_token", value: adminToken)) }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.percentEncodedPath = "/_mock/stream"
        components.queryItems = query.isEmpty ? nil : query
        let target = components.url ?? url
        return AsyncThrowingStream { continuation in
            let reader = StreamReader(continuation: continuation)
            let session = URLSession(configuration: .ephemeral, delegate: reader, delegateQueue: nil)
            var request = URLRequest(url: target, timeoutInterval: 24 * 3600)
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            let task = session.dataTask(with: request)
            continuation.onTermination = { _ in
                task.cancel()
                session.invalidateAndCancel()
            }
            task.resume()
        }
    }
}

/// Reads Server-Sent Events from a data task and hands each complete event to the continuation.
private final class StreamReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Touched only on the session's delegate queue, one callback at a time.
    private var buffer = Data()
    private let continuation: AsyncThrowingStream<StreamEvent, any Error>.Continuation

    init(continuation: AsyncThrowingStream<StreamEvent, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            continuation.finish(
                throwing: CampaignMockError.refused(
                    method: "GET", path: "/_mock/stream", status: status, message: "the event stream was refused"))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        buffer.append(data)
        // Events end with a blank line.
        while let end = buffer.range(of: Data("\n\n".utf8)) {
            let block = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex..<end.upperBound)
            var id: String?
            var type = "message"
            var data: [Substring] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") { continue }  // a comment: the heartbeat
                let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                let value = parts.count > 1 ? parts[1].drop { $0 == " " } : ""
                switch parts[0] {
                case "id": id = String(value)
                case "event": type = String(value)
                case "data": data.append(value)
                default: break
                }
            }
            guard !data.isEmpty else { continue }
            continuation.yield(StreamEvent(id: id, type: type, data: Data(data.joined(separator: "\n").utf8)))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error, (error as NSError).code != NSURLErrorCancelled {
            continuation.finish(
                throwing: CampaignMockError.unreachable(
                    url: task.originalRequest?.url ?? URL(fileURLWithPath: "/"), reason: error.localizedDescription))
        } else {
            continuation.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
