/// The schema, as ordered migrations, and as the one script a new database is made with.
///
/// Never edit an applied migration: add a new one, and make the same change to ``current``.
/// `SchemaTests` keeps the two equal (every table, column, constraint and index, and the rows a
/// migration inserts), and pins the text of every migration.
package enum Schema {
    /// What the migrations below build, in one script. A new database runs this instead of replaying
    /// them: creating `device_params` only to drop it, and an `ALTER TABLE` that makes SQLite parse the
    /// schema again, took 9M of the 20M instructions of a start.
    static let current = """
        CREATE TABLE applications (
            id INTEGER PRIMARY KEY,
            integration_key TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            platform TEXT NOT NULL CHECK (platform IN ('ios', 'android')),
            enabled INTEGER NOT NULL DEFAULT 1,
            created_at INTEGER NOT NULL,
            bundle_id TEXT,
            package_name TEXT
        );
        CREATE TABLE store_counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE devices (
            id INTEGER PRIMARY KEY,
            application_id INTEGER NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
            registration_token TEXT NOT NULL,
            user_key TEXT NOT NULL,
            device_imei TEXT,
            device_name TEXT,
            device_model TEXT,
            device_brand TEXT,
            device_manufacturer TEXT,
            os_name TEXT,
            os_version TEXT,
            os_language TEXT,
            disabled INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            params TEXT NOT NULL DEFAULT '[]',
            UNIQUE (application_id, registration_token)
        );
        CREATE INDEX devices_user_key ON devices (user_key);
        CREATE INDEX devices_updated ON devices (updated_at);
        \(Tables.registrations)
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            message_id TEXT NOT NULL UNIQUE,
            numeric_value INTEGER,
            low32 INTEGER,
            uuid TEXT,
            delivery_id TEXT NOT NULL,
            device_id INTEGER REFERENCES devices (id) ON DELETE SET NULL,
            application_id INTEGER REFERENCES applications (id) ON DELETE SET NULL,
            created_at INTEGER NOT NULL,
            push_id INTEGER REFERENCES pushes (id) ON DELETE SET NULL
        );
        CREATE INDEX messages_numeric ON messages (numeric_value);
        CREATE INDEX messages_low32 ON messages (low32);
        CREATE INDEX messages_uuid ON messages (uuid);
        CREATE INDEX messages_device ON messages (device_id);
        CREATE INDEX messages_push ON messages (push_id) WHERE push_id IS NOT NULL;
        CREATE TABLE tracking_events (
            id INTEGER PRIMARY KEY,
            received_at INTEGER NOT NULL,
            raw_id TEXT NOT NULL,
            message_hex TEXT,
            message_value INTEGER,
            message_uuid TEXT,
            delivery_id TEXT NOT NULL,
            tag INTEGER NOT NULL CHECK (tag IN (1, 2)),
            user_agent TEXT,
            remote_address TEXT,
            message_ref INTEGER REFERENCES messages (id) ON DELETE SET NULL,
            device_id INTEGER REFERENCES devices (id) ON DELETE SET NULL,
            application_id INTEGER REFERENCES applications (id) ON DELETE SET NULL
        );
        CREATE INDEX tracking_events_delivery ON tracking_events (delivery_id);
        CREATE INDEX tracking_events_device ON tracking_events (device_id) WHERE device_id IS NOT NULL;
        CREATE INDEX tracking_events_message ON tracking_events (message_ref, tag, received_at)
            WHERE message_ref IS NOT NULL;
        \(Tables.recipients)
        \(Tables.pushes)
        \(Tables.pushSends)
        \(Tables.options)
        \(Tables.eventsEnumerationsPackages)
        """

    static let migrations: [Migration] = [
        Migration(
            name: "0001-applications",
            sql: """
                CREATE TABLE applications (
                    id INTEGER PRIMARY KEY,
                    integration_key TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    platform TEXT NOT NULL CHECK (platform IN ('ios', 'android')),
                    enabled INTEGER NOT NULL DEFAULT 1,
                    created_at INTEGER NOT NULL
                );
                """),
        Migration(
            name: "0002-request-journal",
            sql: """
                CREATE TABLE request_journal (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    received_at INTEGER NOT NULL,
                    method TEXT NOT NULL,
                    target TEXT NOT NULL,
                    endpoint TEXT NOT NULL,
                    headers TEXT NOT NULL,
                    body BLOB NOT NULL,
                    status INTEGER NOT NULL,
                    reason TEXT,
                    app_key TEXT,
                    duration_us INTEGER NOT NULL,
                    remote_address TEXT
                );
                CREATE TABLE store_counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
                """),
        Migration(
            name: "0003-devices",
            sql: """
                CREATE TABLE devices (
                    id INTEGER PRIMARY KEY,
                    application_id INTEGER NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
                    registration_token TEXT NOT NULL,
                    user_key TEXT NOT NULL,
                    device_imei TEXT,
                    device_name TEXT,
                    device_model TEXT,
                    device_brand TEXT,
                    device_manufacturer TEXT,
                    os_name TEXT,
                    os_version TEXT,
                    os_language TEXT,
                    disabled INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    UNIQUE (application_id, registration_token)
                );
                CREATE INDEX devices_user_key ON devices (user_key);
                CREATE INDEX devices_token ON devices (registration_token);
                CREATE TABLE device_params (
                    device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    type TEXT NOT NULL CHECK (type IN ('string', 'integer', 'decimal', 'boolean')),
                    value TEXT NOT NULL,
                    PRIMARY KEY (device_id, name)
                );
                CREATE INDEX device_params_lookup ON device_params (name, value);
                \(Tables.registrations)
                """),
        Migration(
            name: "0004-tracking",
            sql: """
                CREATE TABLE messages (
                    id INTEGER PRIMARY KEY,
                    message_id TEXT NOT NULL UNIQUE,
                    numeric_value INTEGER,
                    low32 INTEGER,
                    uuid TEXT,
                    delivery_id TEXT NOT NULL,
                    device_id INTEGER REFERENCES devices (id) ON DELETE SET NULL,
                    application_id INTEGER REFERENCES applications (id) ON DELETE SET NULL,
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX messages_numeric ON messages (numeric_value);
                CREATE INDEX messages_low32 ON messages (low32);
                CREATE INDEX messages_uuid ON messages (uuid);
                CREATE TABLE tracking_events (
                    id INTEGER PRIMARY KEY,
                    received_at INTEGER NOT NULL,
                    raw_id TEXT NOT NULL,
                    message_hex TEXT,
                    message_value INTEGER,
                    message_uuid TEXT,
                    delivery_id TEXT NOT NULL,
                    tag INTEGER NOT NULL CHECK (tag IN (1, 2)),
                    user_agent TEXT,
                    remote_address TEXT,
                    message_ref INTEGER REFERENCES messages (id) ON DELETE SET NULL,
                    device_id INTEGER REFERENCES devices (id) ON DELETE SET NULL,
                    application_id INTEGER REFERENCES applications (id) ON DELETE SET NULL
                );
                CREATE INDEX tracking_events_delivery ON tracking_events (delivery_id);
                CREATE INDEX tracking_events_device ON tracking_events (device_id);
                """),
        Migration(
            name: "0005-recipients",
            sql: Tables.recipients),
        Migration(
            name: "0006-pushes",
            sql: """
                \(Tables.pushes)
                ALTER TABLE messages ADD COLUMN push_id INTEGER REFERENCES pushes (id) ON DELETE SET NULL;
                CREATE INDEX messages_device ON messages (device_id);
                """),
        Migration(
            name: "0007-options",
            sql: Tables.options),
        Migration(
            name: "0008-events-enumerations-packages",
            sql: Tables.eventsEnumerationsPackages),
        // A device's params move into a JSON column of the device (as in its registrations): a registration
        // writes one row fewer per param and three B-trees fewer (table, key, lookup index), and a
        // registration takes three statements. Filters by param scan the devices instead of an index.
        Migration(
            name: "0009-device-params-inline",
            sql: """
                ALTER TABLE devices ADD COLUMN params TEXT NOT NULL DEFAULT '[]';
                UPDATE devices SET params = (
                    SELECT json_group_array(json_object('name', name, 'type', type, 'value', value))
                    FROM (SELECT name, type, value FROM device_params WHERE device_id = devices.id ORDER BY name));
                DROP TABLE device_params;
                """),
        // Journal ids are handed out by the store's writer (``SQLiteConnection/nextJournalID``) instead of
        // AUTOINCREMENT, whose bookkeeping row in `sqlite_sequence` was written by every insert: 8 % of a
        // tracking hit's instructions. The highest id given so far is kept as `journal_last_id`, so ids
        // still only grow, also after the journal was emptied.
        Migration(
            name: "0010-journal-ids-from-the-writer",
            sql: """
                INSERT INTO store_counters (name, value)
                    SELECT 'journal_last_id', seq FROM sqlite_sequence WHERE name = 'request_journal'
                    ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value);
                ALTER TABLE request_journal RENAME TO request_journal_autoincrement;
                CREATE TABLE request_journal (
                    id INTEGER PRIMARY KEY,
                    received_at INTEGER NOT NULL,
                    method TEXT NOT NULL,
                    target TEXT NOT NULL,
                    endpoint TEXT NOT NULL,
                    headers TEXT NOT NULL,
                    body BLOB NOT NULL,
                    status INTEGER NOT NULL,
                    reason TEXT,
                    app_key TEXT,
                    duration_us INTEGER NOT NULL,
                    remote_address TEXT
                );
                INSERT INTO request_journal SELECT * FROM request_journal_autoincrement;
                DROP TABLE request_journal_autoincrement;
                """),
        // A hit that names no issued message (most hits, and all of them until a push is composed) belongs
        // to no device: the index of events by device now leaves those out instead of adding a NULL entry
        // for each. Lookups by a device (`device_id = ?`) can still use it.
        Migration(
            name: "0011-events-by-device-only-when-linked",
            sql: """
                DROP INDEX tracking_events_device;
                CREATE INDEX tracking_events_device ON tracking_events (device_id) WHERE device_id IS NOT NULL;
                """),
        // Devices are found by token through the (application_id, registration_token) index the UNIQUE
        // constraint makes, one probe per application (``DeviceLookup/byToken``). The index by token
        // alone cost every new device a B-tree insert at a random place: 4 % of a registration's
        // instructions, and a page more to write and to checkpoint.
        Migration(
            name: "0012-devices-by-token-through-the-unique-index",
            sql: """
                DROP INDEX devices_token;
                """),
        // The request journal moves out of SQLite into files of its own (``JournalLog``): a journal row,
        // with its headers and body, was the dearest part of a request (its bytes went through the WAL
        // and the checkpoint, and trimming made new rows reuse freed pages). `Store` copies the rows into
        // the journal's files before this runs.
        Migration(
            name: "0013-journal-in-its-own-files",
            sql: """
                DROP TABLE request_journal;
                DELETE FROM store_counters WHERE name IN ('journal_last_id', 'journal_dropped');
                """),
        // Retention finds the devices seen longest ago through this index instead of sorting them all
        // (1.4 s a sweep at 500,000 devices). A new device's entry goes at the end of it.
        Migration(
            name: "0014-devices-by-last-registration",
            sql: """
                CREATE INDEX devices_updated ON devices (updated_at);
                """),
        // An application's bundle id (iOS) or package name (Android), set once: the simulator and emulator
        // targets and the APNs topic, so a push need not name them.
        Migration(
            name: "0015-application-bundle-id-and-package",
            sql: """
                ALTER TABLE applications ADD COLUMN bundle_id TEXT;
                ALTER TABLE applications ADD COLUMN package_name TEXT;
                """),
        // A composed message sent through APNs or FCM: the provider's answer, as the API shows it (a
        // ``PushSend`` in JSON), kept with its push and removed with it.
        Migration(
            name: "0016-push-sends",
            sql: Tables.pushSends),
        // A message's first receive and first open (a device's detail asks for them, two per message)
        // are one probe of the first index each, instead of a read of every event; deleting a message
        // finds the events that name it (`ON DELETE SET NULL`) the same way. Only hits linked to an issued
        // message have an entry: a hit that names none, most of them, writes nothing more. The second
        // finds a push's messages: dropping the pushes left without one (after a reset or an import) read
        // every message for each push.
        Migration(
            name: "0017-events-and-messages-by-what-they-belong-to",
            sql: """
                CREATE INDEX tracking_events_message ON tracking_events (message_ref, tag, received_at)
                    WHERE message_ref IS NOT NULL;
                CREATE INDEX messages_push ON messages (push_id) WHERE push_id IS NOT NULL;
                """),
    ]

    /// The tables and indexes no migration changed after the one that made them, written once for that
    /// migration and for ``current``. A migration that changes one later leaves its text here as it is (the
    /// first migration runs it) and spells the table out in ``current`` as it has become;
    /// `SchemaTests.noAppliedMigrationIsEdited` catches an edit to one.
    private enum Tables {
        static let registrations = """
            CREATE TABLE registrations (
                id INTEGER PRIMARY KEY,
                device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
                received_at INTEGER NOT NULL,
                changes TEXT NOT NULL,
                user_key TEXT NOT NULL,
                fields TEXT NOT NULL,
                params TEXT NOT NULL
            );
            CREATE INDEX registrations_device ON registrations (device_id, id);
            """
        static let recipients = """
            CREATE TABLE recipients (
                id INTEGER PRIMARY KEY,
                email TEXT NOT NULL UNIQUE,
                first_name TEXT,
                last_name TEXT,
                black_list INTEGER NOT NULL DEFAULT 0,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE subscriptions (
                recipient_id INTEGER NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
                service TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                PRIMARY KEY (recipient_id, service)
            );
            """
        static let pushes = """
            CREATE TABLE pushes (
                id INTEGER PRIMARY KEY,
                created_at INTEGER NOT NULL,
                delivery_id TEXT NOT NULL,
                answer TEXT NOT NULL DEFAULT ''
            );
            """
        static let pushSends = """
            CREATE TABLE push_sends (
                id INTEGER PRIMARY KEY,
                push_id INTEGER NOT NULL REFERENCES pushes (id) ON DELETE CASCADE,
                answer TEXT NOT NULL
            );
            CREATE INDEX push_sends_push ON push_sends (push_id);
            """
        static let options = """
            CREATE TABLE options (
                name TEXT PRIMARY KEY,
                data_type INTEGER NOT NULL,
                value TEXT NOT NULL,
                description TEXT
            );
            INSERT INTO options (name, data_type, value) VALUES ('XtkDatabaseId', 6, 'u' || lower(hex(randomblob(8))));
            """
        static let eventsEnumerationsPackages = """
            CREATE TABLE rt_events (
                id INTEGER PRIMARY KEY,
                type TEXT,
                wished_channel INTEGER,
                email TEXT,
                registration_token TEXT,
                app_key TEXT,
                ctx TEXT NOT NULL,
                status INTEGER NOT NULL,
                push_id INTEGER,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE enum_values (
                id INTEGER PRIMARY KEY,
                enum_name TEXT NOT NULL,
                name TEXT NOT NULL,
                label TEXT,
                img TEXT,
                ord INTEGER NOT NULL DEFAULT 0,
                UNIQUE (enum_name, name)
            );
            CREATE TABLE installed_packages (
                id INTEGER PRIMARY KEY,
                namespace TEXT NOT NULL,
                name TEXT NOT NULL,
                label TEXT,
                format TEXT NOT NULL,
                entities INTEGER NOT NULL,
                installed_at INTEGER NOT NULL
            );
            """
    }
}
