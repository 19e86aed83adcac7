package import CampaignMockHTTP
import CampaignMockSystem

/// Reads a `text/event-stream` (Server-Sent Events) over plain HTTP, blocking: for `campaign-mock tail`.
package final class EventStreamClient {
    /// One event as the stream sent it.
    package struct ServerSentEvent: Sendable, Equatable {
        package var id: String?
        package var type: String
        package var data: String
    }

    private let socket: Socket
    private var raw: [UInt8] = []
    /// Decoded body bytes not yet split into events.
    private var text: [UInt8] = []
    private var chunked = false
    private var ended = false

    /// Connects and sends `GET path`; throws when the server cannot be reached or does not answer 200
    /// with an event stream (the error carries the server's reason).
    package init(_ path: String, to endpoint: HTTPClient.Endpoint, headers: HTTPHeaders = [:]) throws(HTTPClientError) {
        guard !endpoint.isSecure else { throw HTTPClientError("the event stream is read over http://") }
        let place = "\(endpoint.host):\(endpoint.port)"
        do {
            socket = try Socket.connect(host: endpoint.host, port: endpoint.port, timeoutSeconds: 10)
        } catch {
            throw HTTPClientError("cannot connect to \(place): \(error)")
        }
        var head = "GET \(endpoint.basePath)\(path) HTTP/1.1\r\nHost: \(endpoint.authority)\r\n"
        for (name, value) in headers { head += "\(name.rawValue): \(value)\r\n" }
        head += "Accept: text/event-stream\r\n\r\n"
        do {
            try socket.writeAll(Array(head.utf8))
            while find([13, 10, 13, 10], in: raw) == nil {
                guard try fill() else { throw HTTPClientError("the server closed the connection") }
            }
        } catch let error as HTTPClientError {
            throw error
        } catch {
            throw HTTPClientError("reading from \(place) failed: \(error)")
        }
        let end = find([13, 10, 13, 10], in: raw)!
        let headText = String(decoding: raw[..<end], as: UTF8.self)
        guard headText.hasPrefix("HTTP/1.1 200") else {
            // Not a stream: read the rest of the answer for its reason.
            var all = raw
            var chunk = [UInt8](repeating: 0, count: 65536)
            while case let count =
                (try? chunk.withUnsafeMutableBytes { buffer throws(SystemCallError) in
                    try socket.readBlocking(into: buffer)
                }) ?? 0, count > 0
            {
                all += chunk[0..<count]
            }
            let response = try HTTPResponseReader.read(all)
            throw HTTPClientError("the server answered \(response.status): \(response.text)")
        }
        chunked = headText.lowercased().contains("transfer-encoding: chunked")
        // The server sends a heartbeat every 15 s: three missed ones mean the connection is gone.
        socket.setReceiveTimeout(seconds: 45)
        raw.removeFirst(end + 4)
        // The server adds the reader before it writes the stream's opening comment, and the head comes
        // before both: only once that comment is here is nothing published from now on missed.
        do throws(SystemCallError) {
            decodeChunks()
            while find([10, 10], in: text) == nil && !ended {
                guard try fill() else { break }
                decodeChunks()
            }
        } catch {
            throw HTTPClientError("reading from \(place) failed: \(error)")
        }
    }

    // Also when `init` throws once the socket is open (the instance is whole by then): closed once, here.
    deinit {
        socket.close()
    }

    /// The next event, or nil when the stream ended; comments (heartbeats) are skipped.
    package func next() throws(HTTPClientError) -> ServerSentEvent? {
        while true {
            if let event = takeEvent() { return event }
            if ended { return nil }
            do {
                guard try fill() else {
                    ended = true
                    continue
                }
            } catch {
                throw HTTPClientError("the stream broke: \(error)")
            }
            decodeChunks()
        }
    }

    private func fill() throws(SystemCallError) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var failure: SystemCallError?
        let count = chunk.withUnsafeMutableBytes { buffer -> Int in
            do throws(SystemCallError) {
                return try socket.readBlocking(into: buffer)
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        raw += chunk[0..<count]
        return count > 0
    }

    private func decodeChunks() {
        guard chunked else {
            text += raw
            raw.removeAll()
            return
        }
        while let lineEnd = find([13, 10], in: raw) {
            guard let size = Int(String(decoding: raw[..<lineEnd], as: UTF8.self), radix: 16) else {
                ended = true
                return
            }
            guard raw.count >= lineEnd + 2 + size + 2 else { return }
            text += raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
            raw.removeFirst(lineEnd + 2 + size + 2)
            if size == 0 { ended = true }
        }
    }

    /// Takes one complete event out of the text (skipping comments and bare fields).
    private func takeEvent() -> ServerSentEvent? {
        while let end = find([10, 10], in: text) {
            let block = String(decoding: text[..<end], as: UTF8.self)
            text.removeFirst(end + 2)
            var event = ServerSentEvent(id: nil, type: "message", data: "")
            var hasData = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("id:") { event.id = line.dropFirst(3).trimmingASCIISpaces() }
                if line.hasPrefix("event:") { event.type = line.dropFirst(6).trimmingASCIISpaces() }
                if line.hasPrefix("data:") {
                    event.data += (hasData ? "\n" : "") + line.dropFirst(5).trimmingASCIISpaces()
                    hasData = true
                }
            }
            if hasData { return event }
        }
        return nil
    }

    private func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for index in 0...(bytes.count - pattern.count)
        where bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
            return index
        }
        return nil
    }
}
