import CampaignMockCore
import CampaignMockModel
import CampaignMockRuntime
import CampaignMockStorage
import Dispatch

/// `GET /_mock/state` and `PUT /_mock/state`: export and atomic import of the whole state.
extension AdminAPI {
    func registerState(on group: inout RouteGroup) {
        group.add(.get, "/_mock/state", exportState)
        group.add(.put, "/_mock/state", importState)
    }

    /// Streamed as it is read, a page of rows at a time, and only as fast as the client takes it: memory
    /// stays flat whatever the store's size. A failure midway resets the connection, so a client never
    /// takes half a document for a whole one.
    private func exportState(_ request: HTTPRequest, _ parameters: RouteParameters, _ reply: ReplyChannel) throws {
        try AdminResponse.allowOnly(try AdminResponse.query(request), [])
        let body = ResponseStream(bufferLimit: 2 << 20, waitsForReader: true)
        let head = HTTPResponse(
            status: .ok,
            headers: [
                .contentType: "application/json",
                HTTPHeaderName(rawValue: "Content-Disposition"): #"attachment; filename="campaign-mock-state.json""#,
            ])
        reply.send(.stream(head, body))
        let faults = faults.rules
        DispatchQueue.global().async { [store] in
            do {
                try store.read { try $0.writeSnapshot(faults: faults) { body.write($0) } }
                body.finish()
            } catch {
                body.abort()
            }
        }
    }

    /// Imports run one after another on this queue, never on an event loop: reading a document of gigabytes
    /// takes a while, and the loops keep answering the other requests meanwhile.
    private static let importQueue = DispatchQueue(label: "campaign-mock.state-import")

    /// Read from the request's temporary file (``BodySpooling``) a row at a time and written in one
    /// transaction: a refused document changes nothing, and memory stays flat whatever its size.
    private func importState(_ request: HTTPRequest, _ parameters: RouteParameters, _ reply: ReplyChannel) {
        Self.importQueue.async { [self] in
            do {
                reply.send(try importState(request))
            } catch {
                reply.send(AdminError.response(for: error))
            }
        }
    }

    private func importState(_ request: HTTPRequest) throws -> HTTPResponse {
        let document = try SnapshotImport(request.bodySource)
        let counts = try store.writeAndWait { transaction in
            // The rows it writes are not published one by one: the stream says `reset`, consoles reload.
            try transaction.withoutRecording { try document.replace(in: transaction) }
        }
        // Checked when the document was opened, so replacing the rules cannot fail after the store changed.
        try? faults.replaceAll(document.faults)
        waits.notifyEverything()
        stream.publish(.reset, ["imported": counts])
        return AdminResponse.json(.ok, counts)
    }
}
