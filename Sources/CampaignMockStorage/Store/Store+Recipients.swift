import CampaignMockSystem

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

/// A new recipient must have an email: recipients are keyed by email here.
package struct RecipientWithoutEmail: Error {}

/// A recipient as `xtk:session#Write` sends it: only the fields it names change.
package struct RecipientFields: Sendable, Equatable {
    package var id: Int64?
    package var email: String?
    package var firstName: String?
    package var lastName: String?
    package var blackList: Bool?

    package init(
        id: Int64? = nil, email: String? = nil, firstName: String? = nil, lastName: String? = nil,
        blackList: Bool? = nil
    ) {
        self.id = id
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.blackList = blackList
    }
}

extension RecipientFields {
    /// The column and value that name the recipient: its id, or its email.
    fileprivate func key(byID: Bool) -> (column: String, value: any SQLiteBindable) {
        byID ? ("id", id ?? -1) : ("email", email ?? "")
    }
}

extension StoreReader {
    /// Whether the recipient `fields` names (by id, or by email) exists.
    package func recipientExists(_ fields: RecipientFields, byID: Bool) throws -> Bool {
        let (column, value) = fields.key(byID: byID)
        return try connection.integer("SELECT count(*) FROM recipients WHERE \(column) = ?", [value]) > 0
    }

    /// Whether a recipient with this email exists.
    package func recipientExists(email: String) throws -> Bool {
        try connection.integer("SELECT count(*) FROM recipients WHERE email = ?", [email]) > 0
    }

    /// Whether `name` is a service: every application is one, by its name.
    package func serviceExists(_ name: String) throws -> Bool {
        try connection.integer("SELECT count(*) FROM applications WHERE name = ?", [name]) > 0
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

    /// Creates or updates the recipient `fields` names (by id, or by email); fields left out keep their value.
    ///
    /// - Throws: ``RecipientWithoutEmail`` for a new recipient without email (recipients are keyed by email).
    package func writeRecipient(_ fields: RecipientFields, byID: Bool) throws {
        let (column, key) = fields.key(byID: byID)
        let blackList: Int64? = fields.blackList.map { $0 ? 1 : 0 }
        try connection.query(
            """
            UPDATE recipients SET email = coalesce(?, email), first_name = coalesce(?, first_name),
                last_name = coalesce(?, last_name), black_list = coalesce(?, black_list)
            WHERE \(column) = ?
            """, [fields.email, fields.firstName, fields.lastName, blackList, key])
        if connection.changes > 0 { return }
        guard let email = fields.email, !email.isEmpty else {
            throw RecipientWithoutEmail()
        }
        try connection.query(
            "INSERT INTO recipients (id, email, first_name, last_name, black_list, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [fields.id, email, fields.firstName, fields.lastName, blackList ?? 0, Clock.wallClockMicroseconds()])
    }

    /// Deletes the recipient `fields` names, with its subscriptions.
    package func deleteRecipient(_ fields: RecipientFields, byID: Bool) throws {
        let (column, key) = fields.key(byID: byID)
        try connection.query("DELETE FROM recipients WHERE \(column) = ?", [key])
    }

    /// Deletes every recipient and subscription; returns how many recipients there were.
    package func clearRecipients() throws -> Int {
        try connection.query("DELETE FROM recipients")
        return connection.changes
    }
}
