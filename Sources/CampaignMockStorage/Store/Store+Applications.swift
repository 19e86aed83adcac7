package import CampaignMockModel
import CampaignMockSystem

/// An application as stored, with its row id.
package struct StoredApplication: Sendable, Equatable {
    package let id: Int64
    package let application: Application
}

extension StoreReader {
    /// Every application, by name.
    package func applications() throws -> [Application] {
        try connection.query("SELECT \(Self.applicationColumns) FROM applications ORDER BY name, id")
            .map { try Self.application($0).application }
    }

    /// Every application with its row id.
    package func storedApplications() throws -> [StoredApplication] {
        try connection.query("SELECT \(Self.applicationColumns) FROM applications")
            .map { try Self.application($0) }
    }

    /// The application with `integrationKey`, or nil (inside a transaction; elsewhere
    /// ``Store/application(key:)`` answers from memory).
    package func application(key integrationKey: String) throws -> StoredApplication? {
        try connection.query(
            "SELECT \(Self.applicationColumns) FROM applications WHERE integration_key = ?",
            [integrationKey]
        ).first.map { try Self.application($0) }
    }

    /// The columns ``application(_:)`` reads.
    static let applicationColumns = "id, name, platform, integration_key, enabled, bundle_id, package_name"

    static func application(_ row: SQLiteRow) throws -> StoredApplication {
        StoredApplication(
            id: try row.integer("id"),
            application: Application(
                name: try row.text("name"),
                platform: try row.value("platform", as: Platform.self),
                integrationKey: try row.text("integration_key"),
                enabled: try row.bool("enabled"),
                bundleId: try row["bundle_id"].text,
                packageName: try row["package_name"].text))
    }
}

extension StoreTransaction {
    /// Adds an application; a key that exists already is a ``StoreConflict``.
    package func insertApplication(_ application: Application) throws {
        connection.applicationsChanged = true
        do {
            try connection.query(
                """
                INSERT INTO applications (integration_key, name, platform, enabled, created_at, bundle_id, package_name)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    application.integrationKey, application.name, application.platform.rawValue, application.enabled,
                    Clock.wallClockMicroseconds(), application.bundleId, application.packageName,
                ])
        } catch {
            // (A `catch … where` clause on this typed-throws call crashes the 6.3.1 compiler.)
            guard error.isUniqueViolation else { throw error }
            throw StoreConflict("an application with integration key '\(application.integrationKey)' exists already")
        }
    }

    /// Adds the application or updates the one with its key (start-up configuration is authoritative; a
    /// bundle id or package name it does not give stays as stored, set through the admin API).
    package func upsertApplication(_ application: Application) throws {
        connection.applicationsChanged = true
        try connection.query(
            """
            INSERT INTO applications (integration_key, name, platform, enabled, created_at, bundle_id, package_name)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (integration_key) DO UPDATE SET name = excluded.name, platform = excluded.platform,
                enabled = excluded.enabled,
                bundle_id = coalesce(excluded.bundle_id, bundle_id),
                package_name = coalesce(excluded.package_name, package_name)
            """,
            [
                application.integrationKey, application.name, application.platform.rawValue, application.enabled,
                Clock.wallClockMicroseconds(), application.bundleId, application.packageName,
            ])
    }

    /// Writes the application with `application.integrationKey` as given (name, enabled state, bundle id,
    /// package name); returns false when no application has that key.
    package func updateApplication(_ application: Application) throws -> Bool {
        connection.applicationsChanged = true
        try connection.query(
            """
            UPDATE applications SET name = ?, enabled = ?, bundle_id = ?, package_name = ? WHERE integration_key = ?
            """,
            [
                application.name, application.enabled, application.bundleId, application.packageName,
                application.integrationKey,
            ])
        return connection.changes > 0
    }

    /// Removes the application and its devices; returns false when no application has that key.
    package func deleteApplication(key: String) throws -> Bool {
        connection.applicationsChanged = true
        try connection.query("DELETE FROM applications WHERE integration_key = ?", [key])
        return connection.changes > 0
    }
}

/// A write refused because it collides with stored data (answered as `409`).
package struct StoreConflict: Error, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
