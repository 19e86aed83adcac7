import CampaignMockCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension StoreReader {
    /// The stored state, in storage order (fault rules are added by the caller).
    package func snapshot() throws -> Snapshot {
        let applications = try connection.query(
            "SELECT id, name, platform, integration_key, enabled FROM applications ORDER BY id"
        ).map { try Self.application($0).application }
        let devices = try connection.query(
            """
            SELECT d.*, a.integration_key FROM devices d JOIN applications a ON a.id = d.application_id ORDER BY d.id
            """
        ).map { row in
            let id = try row.integer("id")
            let params = try StoreReader.params(row)
            let history = try connection.query(
                "SELECT received_at, changes, user_key, fields, params FROM registrations WHERE device_id = ? ORDER BY id",
                [id]
            ).map { entry in
                Snapshot.Registration(
                    receivedAt: try entry.time("received_at"),
                    changes: try entry.text("changes").split(separator: ",").map(String.init),
                    userKey: try entry.text("user_key"),
                    device: Self.decode(DeviceFields.self, try entry["fields"].text) ?? DeviceFields(),
                    params: Self.decode([AdditionalParam].self, try entry["params"].text) ?? [])
            }
            return Snapshot.Device(
                integrationKey: try row.text("integration_key"),
                registrationToken: try row.text("registration_token"),
                userKey: try row.text("user_key"),
                device: DeviceFields(
                    deviceImei: try row["device_imei"].text, deviceName: try row["device_name"].text,
                    deviceModel: try row["device_model"].text, deviceBrand: try row["device_brand"].text,
                    deviceManufacturer: try row["device_manufacturer"].text, osName: try row["os_name"].text,
                    osVersion: try row["os_version"].text, osLanguage: try row["os_language"].text),
                params: params, disabled: try row.bool("disabled"),
                createdAt: try row.time("created_at"), updatedAt: try row.time("updated_at"), history: history)
        }
        let messages = try connection.query(
            """
            SELECT m.message_id, m.delivery_id, m.created_at, a.integration_key, d.registration_token FROM messages m
            LEFT JOIN applications a ON a.id = m.application_id LEFT JOIN devices d ON d.id = m.device_id ORDER BY m.id
            """
        ).map { row in
            Snapshot.Message(
                messageId: try row.text("message_id"), deliveryId: try row.text("delivery_id"),
                integrationKey: try row["integration_key"].text, registrationToken: try row["registration_token"].text,
                createdAt: try row.time("created_at"))
        }
        let events = try connection.query(
            """
            SELECT e.received_at, e.raw_id, e.user_agent, e.remote_address, m.message_id FROM tracking_events e
            LEFT JOIN messages m ON m.id = e.message_ref ORDER BY e.id
            """
        ).map { row in
            Snapshot.Event(
                receivedAt: try row.time("received_at"), rawId: try row.text("raw_id"),
                userAgent: try row["user_agent"].text, remoteAddress: try row["remote_address"].text,
                messageId: try row["message_id"].text)
        }
        return Snapshot(applications: applications, devices: devices, messages: messages, events: events, faults: [])
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ text: String?) -> T? {
        text.flatMap { try? JSONDecoder().decode(type, from: Data($0.utf8)) }
    }
}

extension StoreTransaction {
    /// Replaces applications, devices, messages and events with the snapshot's. The caller validated it
    /// (``SnapshotValidator``); anything still wrong throws and, inside the writer's savepoint, changes nothing.
    package func replaceState(with snapshot: Snapshot, times: (String) -> Int64) throws {
        connection.applicationsChanged = true
        try connection.execute(
            "DELETE FROM tracking_events; DELETE FROM messages; DELETE FROM pushes; DELETE FROM devices; DELETE FROM applications;"
        )
        var applicationIDs: [String: Int64] = [:]
        for application in snapshot.applications {
            try insertApplication(application)
            applicationIDs[application.integrationKey] = connection.lastInsertRowID
        }
        var deviceIDs: [String: Int64] = [:]
        for device in snapshot.devices {
            let fields = device.device
            try connection.query(
                """
                INSERT INTO devices (application_id, registration_token, user_key, device_imei, device_name,
                    device_model, device_brand, device_manufacturer, os_name, os_version, os_language, params,
                    disabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    applicationIDs[device.integrationKey], device.registrationToken, device.userKey, fields.deviceImei,
                    fields.deviceName, fields.deviceModel, fields.deviceBrand, fields.deviceManufacturer, fields.osName,
                    fields.osVersion, fields.osLanguage, RegistrationJSON.params(device.params), device.disabled,
                    times(device.createdAt), times(device.updatedAt),
                ])
            let deviceID = connection.lastInsertRowID
            deviceIDs[device.integrationKey + "\u{0}" + device.registrationToken] = deviceID
            for entry in device.history {
                try connection.query(
                    """
                    INSERT INTO registrations (device_id, received_at, changes, user_key, fields, params)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                    [
                        deviceID, times(entry.receivedAt), entry.changes.joined(separator: ","), entry.userKey,
                        RegistrationJSON.fields(entry.device), RegistrationJSON.params(entry.params),
                    ])
            }
        }
        var messageIDs: [String: (row: Int64, device: Int64?, application: Int64?)] = [:]
        for message in snapshot.messages {
            let application = message.integrationKey.flatMap { applicationIDs[$0] }
            let device = message.integrationKey.flatMap { key in
                message.registrationToken.flatMap { deviceIDs[key + "\u{0}" + $0] }
            }
            let row = try insertMessage(
                messageID: message.messageId, deliveryID: message.deliveryId, deviceID: device,
                applicationID: application, createdAt: times(message.createdAt))
            messageIDs[message.messageId] = (row, device, application)
        }
        for event in snapshot.events {
            let id = try TrackingID(parsing: event.rawId)
            let link = event.messageId.flatMap { messageIDs[$0] }
            try insertEvent(
                id, userAgent: event.userAgent, remoteAddress: event.remoteAddress, receivedAt: times(event.receivedAt),
                messageRef: link?.row, deviceID: link?.device, applicationID: link?.application)
        }
    }
}
