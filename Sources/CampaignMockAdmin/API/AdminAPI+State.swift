package import CampaignMockHTTP
import CampaignMockModel
import CampaignMockPush
import CampaignMockRuntime
import CampaignMockStorage
import CampaignMockSupport
import CampaignMockSystem
import Dispatch
import Synchronization

/// `GET /_mock/state` and `PUT /_mock/state`: export and atomic import of the whole state.
extension AdminAPI {
    func registerState(on group: inout RouteGroup) {
        group.add(.get, "/_mock/state", exportState)
        // The slot is taken on the head, before the body is written to a file: a second import waiting
        // for the first would otherwise fill the disk with a body it cannot use yet. The request holds it
        // (its lease) until the import, off the event loops, has answered.
        let oneAtATime: Router.HeadCheck = { [importSlot] in try importSlot.take($0) }
        group.add(.put, "/_mock/state", admit: oneAtATime, importState)
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
            let response: HTTPResponse
            do {
                response = try importState(request)
            } catch {
                response = AdminError.response(for: error)
            }
            // Given back before the answer leaves: a client that sends its next import as soon as this one
            // is answered finds the slot free.
            importSlot.giveBack(request.lease)
            reply.send(response)
        }
    }

    private func importState(_ request: HTTPRequest) throws -> HTTPResponse {
        AdminResponse.json(.ok, try importState(from: request.bodySource))
    }

    /// `serve --import FILE`: the file imported as `PUT /_mock/state` imports a body; a refused one throws
    /// ``SnapshotRefusal`` with the words a `400` answer gives.
    package func importState(fromFile source: any ByteSource) throws -> String {
        do {
            return JSONText.compact(try importState(from: source))
        } catch let error as AdminError {
            throw SnapshotRefusal(message: error.message)
        }
    }

    /// `serve --export-on-exit FILE`: the document `GET /_mock/state` answers, whole.
    package func exportState() throws -> [UInt8] {
        let faults = faults.rules
        return try store.read { reader in
            var bytes: [UInt8] = []
            try reader.writeSnapshot(faults: faults) { chunk in
                bytes += chunk
                return true
            }
            return bytes
        }
    }

    private func importState(from source: any ByteSource) throws -> SnapshotImport.Counts {
        let document = try SnapshotImport(source)
        let counts = try store.writeAndWait { transaction in
            // The rows it writes are not published one by one: the stream says `reset`, consoles reload.
            try transaction.withoutRecording { try document.replace(in: transaction) }
        }
        // Checked when the document was opened, so replacing the rules cannot fail after the store changed.
        try? faults.replaceAll(document.faults)
        waits.notifyEverything()
        stream.publish(.reset, ["imported": counts])
        marksEnd("the state import")
        // Trust is a step taken on this machine for a device seen here: an import never grants it, and the
        // tokens trusted before it are trusted no more.
        sender.distrustAll()
        checksStartAfresh()
        return counts
    }
}

/// A snapshot `serve --import` refused, in the words `PUT /_mock/state` answers `400` with.
package struct SnapshotRefusal: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}

/// The one state import that may run at a time: taken on the request's head, held by the request
/// (``HTTPRequest/lease``) while its body arrives and is imported, given back just before the answer is
/// sent, or when the request goes unanswered (its connection closed midway).
final class ImportSlot: Sendable {
    private let taken = Atomic<Bool>(false)

    /// A lease on the slot, or `409` when another import holds it.
    func take(_ request: HTTPRequest) throws -> (any Sendable & AnyObject)? {
        guard taken.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            throw AdminError(
                .conflict,
                "another import (PUT /_mock/state) is under way; imports run one at a time: send this one again "
                    + "when it is answered")
        }
        return Lease(self)
    }

    /// Gives the slot back for the request holding `lease`; once only, whoever calls first.
    func giveBack(_ lease: (any Sendable & AnyObject)?) {
        (lease as? Lease)?.giveBack()
    }

    private final class Lease: Sendable {
        let slot: ImportSlot
        private let held = Atomic<Bool>(true)
        init(_ slot: ImportSlot) { self.slot = slot }
        deinit { giveBack() }

        func giveBack() {
            if held.exchange(false, ordering: .acquiringAndReleasing) { slot.taken.store(false, ordering: .releasing) }
        }
    }
}
