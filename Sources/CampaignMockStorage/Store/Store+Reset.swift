package import CampaignMockModel

extension StoreTransaction {
    /// Deletes the stored `parts` (faults live in memory, not here), limited to one application when
    /// `applicationKey` is given. Returns the rows deleted per part.
    ///
    /// - Throws: ``StoreConflict`` when the application does not exist.
    package func reset(_ parts: Set<ResetPart>, applicationKey: String?) throws -> [ResetPart: Int] {
        var applicationID: Int64?
        if let applicationKey {
            guard let stored = try reader.application(key: applicationKey) else {
                throw StoreConflict("no application with integration key '\(applicationKey)'")
            }
            applicationID = stored.id
        }
        var deleted: [ResetPart: Int] = [:]
        if parts.contains(.journal) {
            deleted[.journal] = clearJournal(appKey: applicationKey)
        }
        if parts.contains(.events) {
            try connection.query(
                "DELETE FROM tracking_events WHERE ? IS NULL OR application_id = ?", [applicationID, applicationID])
            deleted[.events] = connection.changes
            try connection.query(
                "DELETE FROM messages WHERE ? IS NULL OR application_id = ?", [applicationID, applicationID])
            try deleteOrphanedPushes()
            // SOAP real-time events (PushEvent): those of the application, or all of them.
            try connection.query(
                "DELETE FROM rt_events WHERE ? IS NULL OR app_key = ?", [applicationKey, applicationKey])
        }
        if parts.contains(.recipients) && applicationKey == nil {
            // Recipients belong to no application, so a reset for one application keeps them.
            deleted[.recipients] = try clearRecipients()
        }
        if parts.contains(.devices) {
            try connection.query(
                "DELETE FROM devices WHERE ? IS NULL OR application_id = ?", [applicationID, applicationID])
            deleted[.devices] = connection.changes
        }
        return deleted
    }
}
