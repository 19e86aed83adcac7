import CampaignMockSystem

/// An `nms:rtEvent` as `PushEvent` received it: a mobile event (a push for a device) or another channel's
/// (e-mail), stored so `ExecuteQuery` can `get` it by `@id`.
package struct RealTimeEvent: Sendable, Equatable {
    package var type: String?
    package var wishedChannel: Int?
    package var email: String?
    package var registrationToken: String?
    package var appKey: String?
    /// The `<ctx>` element as XML.
    package var context: String

    package init(
        type: String? = nil, wishedChannel: Int? = nil, email: String? = nil, registrationToken: String? = nil,
        appKey: String? = nil, context: String
    ) {
        self.type = type
        self.wishedChannel = wishedChannel
        self.email = email
        self.registrationToken = registrationToken
        self.appKey = appKey
        self.context = context
    }
}

extension StoreReader {
    /// (namespace, name) of every package `InstallPackage` installed that has a name, once each.
    package func installedPackages() throws -> [(String, String)] {
        try connection.query(
            "SELECT namespace, name FROM installed_packages WHERE name <> '' GROUP BY namespace, name ORDER BY min(id)"
        ).map { (try $0.text("namespace"), try $0.text("name")) }
    }
}

extension StoreTransaction {
    /// The id for a new event: above every event's and every push's, so a mobile event's push can take
    /// the same id (`plId` is then the push's id too).
    package func nextEventID() throws -> Int64 {
        let events = try connection.integer("SELECT coalesce(max(id), 0) FROM rt_events")
        let pushes = try connection.integer("SELECT coalesce(max(id), 0) FROM pushes")
        return max(events, pushes) + 1
    }

    /// Stores an event as processed (campaign-mock handles events as they arrive).
    package func insertRealTimeEvent(_ event: RealTimeEvent, id: Int64, pushID: Int64?) throws {
        try connection.query(
            """
            INSERT INTO rt_events (id, type, wished_channel, email, registration_token, app_key, ctx, status, push_id,
                created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
            """,
            [
                id, event.type, event.wishedChannel.map(Int64.init), event.email, event.registrationToken,
                event.appKey, event.context, pushID, Clock.wallClockMicroseconds(),
            ])
    }

    /// Adds or replaces enumeration values (from an installed package).
    package func upsertEnumValue(enumeration: String, name: String, label: String?, image: String?, order: Int) throws {
        try connection.query(
            """
            INSERT INTO enum_values (enum_name, name, label, img, ord) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (enum_name, name) DO UPDATE SET label = excluded.label, img = excluded.img, ord = excluded.ord
            """, [enumeration, name, label, image, Int64(order)])
    }

    /// Records an installed package.
    package func recordPackage(namespace: String, name: String, label: String?, format: String, entities: Int) throws {
        try connection.query(
            """
            INSERT INTO installed_packages (namespace, name, label, format, entities, installed_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """, [namespace, name, label, format, Int64(entities), Clock.wallClockMicroseconds()])
    }
}
