import CampaignMockCore

/// A recipient as `nms:subscription#Subscribe` names it (`<recipient _key="@email" email="…"/>`).
package struct RecipientKey: Sendable, Equatable {
    package var email: String
    package var firstName: String?
    package var lastName: String?

    package init(email: String, firstName: String? = nil, lastName: String? = nil) {
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
    }
}

extension StoreReader {
    /// Whether a recipient with this email exists.
    package func recipientExists(email: String) throws -> Bool {
        try connection.scalar("SELECT count(*) FROM recipients WHERE email = ?", [email]).integer ?? 0 > 0
    }

    /// Whether `name` is a service: every application is one, by its name.
    package func serviceExists(_ name: String) throws -> Bool {
        try connection.scalar("SELECT count(*) FROM applications WHERE name = ?", [name]).integer ?? 0 > 0
    }
}

extension StoreTransaction {
    /// Subscribes the recipient (created when missing) to `service`; subscribing twice is one subscription.
    package func subscribe(_ recipient: RecipientKey, to service: String) throws {
        try connection.query(
            """
            INSERT INTO recipients (email, first_name, last_name, created_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (email) DO UPDATE SET first_name = coalesce(excluded.first_name, first_name),
                last_name = coalesce(excluded.last_name, last_name)
            """, [recipient.email, recipient.firstName, recipient.lastName, Clock.wallClockMicroseconds()])
        try connection.query(
            """
            INSERT OR IGNORE INTO subscriptions (recipient_id, service, created_at)
            SELECT id, ?, ? FROM recipients WHERE email = ?
            """, [service, Clock.wallClockMicroseconds(), recipient.email])
    }

    /// Ends the subscription; without a service, blacklists the recipient (docs/protocol.md §5.6). An unknown
    /// recipient is no error.
    package func unsubscribe(email: String, from service: String?) throws {
        if let service {
            try connection.query(
                "DELETE FROM subscriptions WHERE service = ? AND recipient_id IN (SELECT id FROM recipients WHERE email = ?)",
                [service, email])
        } else {
            try connection.query("UPDATE recipients SET black_list = 1 WHERE email = ?", [email])
        }
    }

    /// Deletes every recipient and subscription; returns how many recipients there were.
    package func clearRecipients() throws -> Int {
        try connection.query("DELETE FROM recipients")
        return connection.changes
    }
}
