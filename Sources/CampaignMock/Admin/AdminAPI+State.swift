import CampaignMockCore

/// `GET /_mock/state` and `PUT /_mock/state`: export and atomic import of the whole state.
extension AdminAPI {
    func registerState(on group: inout RouteGroup) {
        group.add(.get, "/_mock/state", respond: exportState)
        group.add(.put, "/_mock/state", respond: importState)
    }

    private func exportState(_ request: HTTPRequest) throws -> HTTPResponse {
        var snapshot = try store.read { try $0.snapshot() }
        snapshot.faults = faults.rules
        return AdminResponse.json(.ok, snapshot)
    }

    private func importState(_ request: HTTPRequest) throws -> HTTPResponse {
        let snapshot = try AdminResponse.decode(Snapshot.self, from: request)
        do {
            try SnapshotValidator.validate(snapshot)
        } catch {
            throw AdminError(.badRequest, "snapshot refused, nothing changed: \(error.message)")
        }
        try store.writeAndWait { transaction in
            // The rows it writes are not published one by one: the stream says `reset`, consoles reload.
            try transaction.withoutRecording {
                try transaction.replaceState(with: snapshot) { SnapshotValidator.microseconds($0) ?? 0 }
            }
        }
        // Validated above, so replacing the rules cannot fail after the store changed.
        try? faults.replaceAll(snapshot.faults)
        waits.notifyEverything()
        let counts = [
            "applications": snapshot.applications.count, "devices": snapshot.devices.count,
            "messages": snapshot.messages.count, "events": snapshot.events.count, "faults": snapshot.faults.count,
        ]
        stream.publish("reset", ["imported": counts])
        return AdminResponse.json(.ok, counts)
    }
}
