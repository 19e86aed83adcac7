package import CampaignMockJournal
package import CampaignMockModel
import CampaignMockSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension StoreTransaction {
    /// Upserts the device keyed by (application, token) with its params, and appends a history row saying
    /// what changed: three statements, in the caller's transaction. `application` is the one the endpoint
    /// checked the request against (looked up once, by the endpoint).
    ///
    /// - Returns: the registration as written, which the event stream and the waiters are given as it is
    ///   (nothing is read back to tell them).
    /// - Throws: ``StoreConflict`` when the application was removed meanwhile.
    @discardableResult
    package func register(_ registration: RegistrationRequest, application: StoredApplication, receivedAt: Int64)
        throws -> RegistrationNotice
    {
        // One statement finds the device and its last registration.
        let found = try connection.query(
            """
            SELECT d.id AS device_id, d.user_key, d.disabled, d.created_at, r.fields AS last_fields,
                r.params AS last_params
            FROM devices d
            LEFT JOIN registrations r ON r.id = (SELECT max(id) FROM registrations WHERE device_id = d.id)
            WHERE d.application_id = ? AND d.registration_token = ?
            """
        ) {
            $0.integer(application.id)
            $0.text(registration.registrationToken)
        }.first
        let applicationID = application.id
        let fields = RegistrationJSON.fields(registration.device)
        let params = RegistrationJSON.params(registration.params)

        let deviceID: Int64
        var changed: RegistrationChanges = []
        if let found, let existingID = try found["device_id"].integer {
            deviceID = existingID
            if try found["user_key"].text != registration.userKey { changed.insert(.userKey) }
            if try found["last_fields"].text != fields { changed.insert(.device) }
            if try found["last_params"].text != params { changed.insert(.params) }
            let device = registration.device
            try connection.query(
                """
                UPDATE devices SET user_key = ?, device_imei = ?, device_name = ?, device_model = ?, device_brand = ?,
                    device_manufacturer = ?, os_name = ?, os_version = ?, os_language = ?, params = ?, updated_at = ?
                WHERE id = ?
                """
            ) {
                $0.text(registration.userKey)
                $0.device(device)
                $0.text(params)
                $0.integer(receivedAt)
                $0.integer(deviceID)
            }
        } else {
            let device = registration.device
            do {
                try insertDevice()
            } catch {
                // (A `catch … where` clause on this typed-throws call crashes the 6.3.1 compiler.)
                guard error.isForeignKeyViolation else { throw error }
                throw StoreConflict("application \(application.application.integrationKey) was removed")
            }
            func insertDevice() throws(SQLiteError) {
                try connection.query(
                    """
                    INSERT INTO devices (application_id, registration_token, user_key, device_imei, device_name,
                        device_model, device_brand, device_manufacturer, os_name, os_version, os_language, params,
                        created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
                ) {
                    $0.integer(applicationID)
                    $0.text(registration.registrationToken)
                    $0.text(registration.userKey)
                    $0.device(device)
                    $0.text(params)
                    $0.integer(receivedAt)
                    $0.integer(receivedAt)
                }
            }
            deviceID = connection.lastInsertRowID
            changed = .new
        }
        try connection.query(
            """
            INSERT INTO registrations (device_id, received_at, changes, user_key, fields, params)
            VALUES (?, ?, ?, ?, ?, ?)
            """
        ) {
            $0.integer(deviceID)
            $0.integer(receivedAt)
            $0.text(changed.column)
            $0.text(registration.userKey)
            $0.text(fields)
            $0.text(params)
        }
        let notice = RegistrationNotice(
            registrationToken: registration.registrationToken,
            integrationKey: application.application.integrationKey, platform: application.application.platform,
            registration: DeviceSubscription.Registration(
                id: connection.lastInsertRowID, receivedAt: RFC3339.string(microsecondsSince1970: receivedAt),
                changed: changed, userKey: registration.userKey, device: registration.device,
                params: registration.params.sorted { $0.name < $1.name }, receivedAtMicroseconds: receivedAt))
        record(.registration(notice))
        if connection.recording && recordsDeviceRows {
            // The device as the lists show it: what was just written, and the history's length (a new
            // device's is one: no query, so the first registration of each device costs nothing more).
            let count =
                found == nil
                ? 1
                : try connection.integer(
                    "SELECT count(*) FROM registrations WHERE device_id = ?", [deviceID])
            let created = try found?["created_at"].integer
            let disabled = try found?["disabled"].integer == 1
            record(
                .device(
                    DeviceSubscription(
                        registrationToken: registration.registrationToken,
                        application: .init(
                            integrationKey: application.application.integrationKey,
                            name: application.application.name, platform: application.application.platform),
                        userKey: registration.userKey, device: registration.device, params: notice.params,
                        disabled: disabled,
                        createdAt: created.map { RFC3339.string(microsecondsSince1970: $0) } ?? notice.receivedAt,
                        updatedAt: notice.receivedAt, registrationCount: Int(count))))
        }
        return notice
    }

}

extension StoreReader {
    private static let deviceColumns = """
        SELECT d.id, d.registration_token, d.user_key, d.device_imei, d.device_name, d.device_model, d.device_brand,
            d.device_manufacturer, d.os_name, d.os_version, d.os_language, d.params, d.disabled, d.created_at,
            d.updated_at,
            a.integration_key, a.name AS app_name, a.platform,
            (SELECT count(*) FROM registrations r WHERE r.device_id = d.id) AS registration_count
        FROM devices d JOIN applications a ON a.id = d.application_id
        """

    /// The clause for one param filter on the device `d`: its name and value are bound, never spliced in.
    private static let paramFilter = """

            AND EXISTS (
                SELECT 1 FROM json_each(d.params) p
                WHERE json_extract(p.value, '$.name') = ? AND json_extract(p.value, '$.value') = ?)
        """

    /// A page of the devices matching `filter`, at most `limit`, with how many match in all.
    package func devices(matching filter: DeviceFilter, _ paging: Paging, limit: Int) throws -> DevicePage {
        let (condition, values) = Self.deviceCondition(filter)
        let (pageCondition, pageValues, order) = paging.clause("d.id")
        let rows = try connection.query(
            Self.deviceColumns + "\nWHERE \(condition) AND \(pageCondition) ORDER BY \(order) LIMIT ?",
            values + pageValues + [limit + 1])
        let devices = try rows.prefix(limit).map { try device($0, withHistory: false) }
        let total = try connection.integer(
            "SELECT count(*) FROM devices d JOIN applications a ON a.id = d.application_id WHERE \(condition)", values)
        return DevicePage(
            devices: devices, total: Int(total),
            nextCursor: rows.count > limit ? try rows[limit - 1].integer("id") : nil)
    }

    /// The WHERE clause of `filter` for devices `d` of applications `a`, and its values: every name and
    /// value is bound, never spliced in.
    private static func deviceCondition(_ filter: DeviceFilter) -> (String, [any SQLiteBindable]) {
        // Only the filters given become clauses, so that each can use its index.
        var sql = "1"
        var values: [any SQLiteBindable] = []
        if let key = filter.applicationKey {
            sql += " AND a.integration_key = ?"
            values.append(key)
        }
        if let platform = filter.platform {
            sql += " AND a.platform = ?"
            values.append(platform.rawValue)
        }
        if let userKey = filter.userKey {
            sql += " AND d.user_key = ?"
            values.append(userKey)
        }
        if let token = filter.registrationToken {
            sql += " AND " + DeviceLookup.byToken
            values.append(token)
        }
        for param in filter.params {
            sql += Self.paramFilter
            values += [param.name, param.value]
        }
        if let search = filter.search {
            // Case-insensitive (ASCII) within every text a person may search a device by; `instr`, not
            // LIKE, so that `%` and `_` in the search are plain characters.
            sql += """

                    AND instr(lower(d.registration_token || ' ' || d.user_key || ' ' || coalesce(d.device_model, '')
                        || ' ' || coalesce(d.device_name, '') || ' ' || coalesce(d.os_name, '') || ' '
                        || coalesce(d.os_version, '') || ' ' || coalesce(d.device_brand, '') || ' '
                        || coalesce(d.device_manufacturer, '') || ' ' || a.integration_key || ' ' || a.name || ' '
                        || d.params), lower(?)) > 0
                """
            values.append(search)
        }
        return (sql, values)
    }

    /// Accepted registrations with id above `after` (and at or after `since`, in microseconds) of devices
    /// matching `filter`, oldest first.
    package func registrations(
        after: Int64, since: Int64?, matching filter: DeviceFilter, limit: Int, upTo: Int64? = nil
    ) throws -> [RegistrationNotice] {
        try registrations(.oldestFirst(after: after), since: since, matching: filter, limit: limit, upTo: upTo)
    }

    /// A page of the accepted registrations (at or after `since`, with id at most `upTo`) of devices
    /// matching `filter`.
    package func registrations(
        _ paging: Paging, since: Int64?, matching filter: DeviceFilter, limit: Int, upTo: Int64?
    ) throws -> [RegistrationNotice] {
        let (condition, values) = Self.registrationCondition(since: since, filter: filter, upTo: upTo)
        let (pageCondition, pageValues, order) = paging.clause("r.id")
        let sql = """
            SELECT \(Self.registrationColumns), d.registration_token, a.integration_key, a.platform
            FROM registrations r JOIN devices d ON d.id = r.device_id JOIN applications a ON a.id = d.application_id
            WHERE \(condition) AND \(pageCondition) ORDER BY \(order) LIMIT ?
            """
        return try connection.query(sql, values + pageValues + [limit]).map { row in
            var registration = try Self.registration(row)
            registration.params.sort { $0.name < $1.name }
            return RegistrationNotice(
                registrationToken: try row.text("registration_token"), integrationKey: try row.text("integration_key"),
                platform: try row.value("platform", as: Platform.self), registration: registration)
        }
    }

    /// The registrations of device `id`, oldest first, their params in the order they were sent: its history,
    /// as its answer and the snapshot show it.
    func history(ofDevice id: Int64) throws -> [DeviceSubscription.Registration] {
        try connection.query(
            "SELECT \(Self.registrationColumns) FROM registrations r WHERE r.device_id = ? ORDER BY r.id", [id]
        ).map(Self.registration)
    }

    /// The columns ``registration(_:)`` reads, of the registrations `r`.
    private static let registrationColumns = "r.id, r.received_at, r.changes, r.user_key, r.fields, r.params"

    /// A registration as it was written.
    private static func registration(_ row: SQLiteRow) throws -> DeviceSubscription.Registration {
        DeviceSubscription.Registration(
            id: try row.integer("id"), receivedAt: try row.time("received_at"),
            changed: RegistrationChanges(names: try row.text("changes").split(separator: ",")),
            userKey: try row.text("user_key"),
            device: decode(DeviceFields.self, try row["fields"].text) ?? DeviceFields(),
            params: decode([AdditionalParam].self, try row["params"].text) ?? [],
            receivedAtMicroseconds: try row.integer("received_at"))
    }

    /// How many accepted registrations (at or after `since`, with id at most `upTo`) of devices matching
    /// `filter` there are.
    package func registrationCount(since: Int64?, matching filter: DeviceFilter, upTo: Int64?) throws -> Int {
        let (condition, values) = Self.registrationCondition(since: since, filter: filter, upTo: upTo)
        return Int(
            try connection.integer(
                """
                SELECT count(*) FROM registrations r JOIN devices d ON d.id = r.device_id
                JOIN applications a ON a.id = d.application_id WHERE \(condition)
                """, values))
    }

    /// The WHERE clause of a registration query on `r`, its device `d` and application `a`, and its values
    /// (all bound).
    private static func registrationCondition(since: Int64?, filter: DeviceFilter, upTo: Int64?)
        -> (String, [any SQLiteBindable])
    {
        var sql = """
            (? IS NULL OR r.received_at >= ?) AND (? IS NULL OR a.integration_key = ?)
                AND (? IS NULL OR a.platform = ?) AND (? IS NULL OR r.user_key = ?) AND (? IS NULL OR d.registration_token = ?)
                AND (? IS NULL OR r.id <= ?)
            """
        var values: [any SQLiteBindable] = [
            since, since, filter.applicationKey, filter.applicationKey, filter.platform?.rawValue,
            filter.platform?.rawValue, filter.userKey, filter.userKey, filter.registrationToken,
            filter.registrationToken, upTo, upTo,
        ]
        // One fixed clause per param filter; names and values are bound, never spliced in.
        for param in filter.params {
            sql += Self.paramFilter
            values += [param.name, param.value]
        }
        return (sql, values)
    }

    /// The newest registration id (0 when none).
    package func lastRegistrationID() throws -> Int64 {
        try connection.integer("SELECT coalesce(max(id), 0) FROM registrations")
    }

    /// Every device registered under `token` (one per application), with history.
    package func devices(token: String, applicationKey: String?) throws -> [DeviceSubscription] {
        let rows = try connection.query(
            Self.deviceColumns
                + "\nWHERE \(DeviceLookup.byToken) AND (? IS NULL OR a.integration_key = ?) ORDER BY d.id",
            [token, applicationKey, applicationKey])
        return try rows.map { try device($0, withHistory: true) }
    }

    private func device(_ row: SQLiteRow, withHistory: Bool) throws -> DeviceSubscription {
        let id = try row.integer("id")
        let params = try Self.params(row)
        return DeviceSubscription(
            registrationToken: try row.text("registration_token"),
            application: .init(
                integrationKey: try row.text("integration_key"), name: try row.text("app_name"),
                platform: try row.value("platform", as: Platform.self)),
            userKey: try row.text("user_key"),
            device: try Self.deviceFields(row),
            params: params,
            disabled: try row.bool("disabled"),
            createdAt: try row.time("created_at"),
            updatedAt: try row.time("updated_at"),
            registrationCount: Int(try row.integer("registration_count")),
            history: withHistory ? try history(ofDevice: id) : nil,
            messages: withHistory ? try messageLifecycles(deviceID: id) : nil)
    }

    /// A device row's params (its `params` column), by name.
    ///
    /// - Throws: ``SQLiteError`` when the column is not a JSON list of params.
    static func params(_ row: SQLiteRow) throws -> [AdditionalParam] {
        let text = try row.text("params")
        guard let params = decode([AdditionalParam].self, text) else {
            throw SQLiteError(code: 0, message: "a device's params are not a list of params: \(text.prefix(80))")
        }
        return params.sorted { $0.name < $1.name }
    }

    /// A device row's fields, `device_imei` to `os_language`.
    static func deviceFields(_ row: SQLiteRow) throws -> DeviceFields {
        DeviceFields(
            deviceImei: try row["device_imei"].text, deviceName: try row["device_name"].text,
            deviceModel: try row["device_model"].text, deviceBrand: try row["device_brand"].text,
            deviceManufacturer: try row["device_manufacturer"].text, osName: try row["os_name"].text,
            osVersion: try row["os_version"].text, osLanguage: try row["os_language"].text)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String?) -> T? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(type, from: Data(text.utf8))
    }
}

extension SQLiteParameters {
    /// A device's fields, in the order of the devices table's columns (`device_imei` to `os_language`).
    fileprivate mutating func device(_ device: DeviceFields) {
        text(device.deviceImei)
        text(device.deviceName)
        text(device.deviceModel)
        text(device.deviceBrand)
        text(device.deviceManufacturer)
        text(device.osName)
        text(device.osVersion)
        text(device.osLanguage)
    }
}

/// How a statement finds the devices registered under a token (bound as one parameter).
package enum DeviceLookup {
    /// Through the (application_id, registration_token) index of the devices' UNIQUE constraint, one probe
    /// per application: there is no index by token alone (it cost every new device a B-tree insert,
    /// migration 0012), and `registration_token = ?` by itself would scan every device. For a statement
    /// that names the devices `d`; `SchemaTests` checks the plan.
    static let byToken = "d.application_id IN (SELECT id FROM applications) AND d.registration_token = ?"
}

extension StoreTransaction {
    /// Removes the device of `token` in application `key` with its registrations; its tracking events and
    /// messages stay, linked to no device (the schema's `ON DELETE SET NULL`), and so do the pushes composed
    /// for it. Nil when there is no such device.
    package func deleteDevice(token: String, applicationKey key: String) throws -> DeviceRemoval? {
        guard
            let id = try connection.scalar(
                """
                SELECT d.id FROM devices d JOIN applications a ON a.id = d.application_id
                WHERE a.integration_key = ? AND d.registration_token = ?
                """, [key, token]
            ).integer
        else { return nil }
        let registrations = try connection.integer("SELECT count(*) FROM registrations WHERE device_id = ?", [id])
        let events = try connection.integer("SELECT count(*) FROM tracking_events WHERE device_id = ?", [id])
        let messages = try connection.integer("SELECT count(*) FROM messages WHERE device_id = ?", [id])
        let pushes = try connection.integer(
            "SELECT count(DISTINCT push_id) FROM messages WHERE device_id = ? AND push_id IS NOT NULL", [id])
        try connection.query("DELETE FROM devices WHERE id = ?", [id])
        return DeviceRemoval(
            registrationToken: token, app: key, registrations: Int(registrations), eventsUnlinked: Int(events),
            messagesUnlinked: Int(messages), pushesKept: Int(pushes))
    }
}
