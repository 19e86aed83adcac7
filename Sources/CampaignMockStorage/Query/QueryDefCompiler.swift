import CampaignMockSystem

/// What `ExecuteQuery` returns: rows (field → value as text; nil when empty), or a count.
package enum QueryResult: Sendable, Equatable {
    case rows([[(field: QueryDefinition.Field, value: String?)]])
    case count(Int)

    package static func == (lhs: QueryResult, rhs: QueryResult) -> Bool {
        switch (lhs, rhs) {
        case (.count(let left), .count(let right)): return left == right
        case (.rows(let left), .rows(let right)):
            return left.count == right.count
                && zip(left, right).allSatisfy {
                    $0.map(\.field) == $1.map(\.field) && $0.map(\.value) == $1.map(\.value)
                }
        default: return false
        }
    }
}

/// The schemas `ExecuteQuery` can read, and the SQL behind each field. Every fragment is fixed here;
/// a query only chooses among them, and its values are bound (docs/product.md §10, U9 for the names).
package enum QuerySchemas {
    enum Kind {
        case text, integer, time
    }

    struct Column {
        let sql: String
        let kind: Kind
    }

    package struct Table {
        /// `FROM … JOIN …`.
        let from: String
        let columns: [QueryDefinition.Field: Column]
        /// For fields not in `columns`: a subquery reading an additional param by its (bound) name.
        let paramColumn: String?
        let defaultOrder: String
        /// The values `from` binds, from what the server knows of itself.
        var fromValues: @Sendable (ExecutionInstance) -> [any SQLiteBindable] = { _ in [] }
    }

    private static func attribute(_ name: String) -> QueryDefinition.Field { .init(link: nil, attribute: name) }
    private static func linked(_ link: String, _ name: String) -> QueryDefinition.Field {
        .init(link: link, attribute: name)
    }

    package static let tables: [String: Table] = [
        "nms:mobileApp": Table(
            from: "FROM applications a",
            columns: [
                attribute("id"): Column(sql: "a.id", kind: .integer),
                attribute("uuid"): Column(sql: "a.integration_key", kind: .text),
                attribute("name"): Column(sql: "a.name", kind: .text),
                attribute("label"): Column(sql: "a.name", kind: .text),
                attribute("platform"): Column(sql: "a.platform", kind: .text),
                attribute("disabled"): Column(sql: "(1 - a.enabled)", kind: .integer),
                attribute("created"): Column(sql: "a.created_at", kind: .time),
            ],
            paramColumn: nil, defaultOrder: "a.id"),
        "nms:appSubscriptionRcp": Table(
            // Applications first (CROSS JOIN keeps that order): a condition on the token then finds the
            // device through the (application, token) index, one probe per application, not by a scan.
            from: "FROM applications a CROSS JOIN devices d ON d.application_id = a.id",
            columns: [
                attribute("id"): Column(sql: "d.id", kind: .integer),
                attribute("registrationToken"): Column(sql: "d.registration_token", kind: .text),
                attribute("userKey"): Column(sql: "d.user_key", kind: .text),
                attribute("deviceImei"): Column(sql: "d.device_imei", kind: .text),
                attribute("deviceName"): Column(sql: "d.device_name", kind: .text),
                attribute("deviceModel"): Column(sql: "d.device_model", kind: .text),
                attribute("deviceBrand"): Column(sql: "d.device_brand", kind: .text),
                attribute("deviceManufacturer"): Column(sql: "d.device_manufacturer", kind: .text),
                attribute("osName"): Column(sql: "d.os_name", kind: .text),
                attribute("osVersion"): Column(sql: "d.os_version", kind: .text),
                attribute("osLanguage"): Column(sql: "d.os_language", kind: .text),
                attribute("disabled"): Column(sql: "d.disabled", kind: .integer),
                attribute("created"): Column(sql: "d.created_at", kind: .time),
                attribute("lastModified"): Column(sql: "d.updated_at", kind: .time),
                attribute("mobileApp-id"): Column(sql: "d.application_id", kind: .integer),
                linked("mobileApp", "uuid"): Column(sql: "a.integration_key", kind: .text),
                linked("mobileApp", "name"): Column(sql: "a.name", kind: .text),
                linked("mobileApp", "platform"): Column(sql: "a.platform", kind: .text),
            ],
            paramColumn: """
                (SELECT json_extract(p.value, '$.value') FROM json_each(d.params) p
                WHERE json_extract(p.value, '$.name') = ?)
                """,
            defaultOrder: "d.id"),
        "nms:broadLogAppSubRcp": Table(
            from: """
                FROM messages m LEFT JOIN devices d ON d.id = m.device_id LEFT JOIN applications a ON a.id = m.application_id
                """,
            columns: [
                attribute("id"): Column(sql: "m.message_id", kind: .text),
                attribute("delivery-id"): Column(sql: "m.delivery_id", kind: .text),
                attribute("eventDate"): Column(sql: "m.created_at", kind: .time),
                attribute("appSubscription-id"): Column(sql: "m.device_id", kind: .integer),
                linked("appSubscription", "registrationToken"): Column(sql: "d.registration_token", kind: .text),
                linked("appSubscription", "userKey"): Column(sql: "d.user_key", kind: .text),
                linked("mobileApp", "uuid"): Column(sql: "a.integration_key", kind: .text),
            ],
            paramColumn: nil, defaultOrder: "m.id"),
        "nms:trackingLogAppSubRcp": Table(
            from: """
                FROM tracking_events e LEFT JOIN messages m ON m.id = e.message_ref LEFT JOIN devices d ON d.id = e.device_id
                LEFT JOIN applications a ON a.id = e.application_id
                """,
            columns: [
                attribute("id"): Column(sql: "e.id", kind: .integer),
                attribute("logDate"): Column(sql: "e.received_at", kind: .time),
                attribute("tagId"): Column(sql: "e.tag", kind: .integer),
                attribute("rawId"): Column(sql: "e.raw_id", kind: .text),
                attribute("deliveryId"): Column(sql: "e.delivery_id", kind: .text),
                attribute("broadLog-id"): Column(sql: "m.message_id", kind: .text),
                attribute("userAgent"): Column(sql: "e.user_agent", kind: .text),
                attribute("sourceIP"): Column(sql: "e.remote_address", kind: .text),
                attribute("appSubscription-id"): Column(sql: "e.device_id", kind: .integer),
                linked("appSubscription", "registrationToken"): Column(sql: "d.registration_token", kind: .text),
                linked("mobileApp", "uuid"): Column(sql: "a.integration_key", kind: .text),
                linked("broadLog", "id"): Column(sql: "m.message_id", kind: .text),
            ],
            paramColumn: nil, defaultOrder: "e.id"),
        "nms:recipient": Table(
            from: "FROM recipients r",
            columns: [
                attribute("id"): Column(sql: "r.id", kind: .integer),
                attribute("email"): Column(sql: "r.email", kind: .text),
                attribute("firstName"): Column(sql: "r.first_name", kind: .text),
                attribute("lastName"): Column(sql: "r.last_name", kind: .text),
                attribute("blackList"): Column(sql: "r.black_list", kind: .integer),
                attribute("created"): Column(sql: "r.created_at", kind: .time),
            ],
            paramColumn: nil, defaultOrder: "r.id"),
        "nms:subscription": Table(
            from: "FROM subscriptions s JOIN recipients r ON r.id = s.recipient_id",
            columns: [
                attribute("service"): Column(sql: "s.service", kind: .text),
                attribute("created"): Column(sql: "s.created_at", kind: .time),
                attribute("recipient-id"): Column(sql: "s.recipient_id", kind: .integer),
                linked("recipient", "email"): Column(sql: "r.email", kind: .text),
            ],
            paramColumn: nil, defaultOrder: "s.created_at, s.recipient_id"),
        "nms:service": Table(
            from: "FROM applications a",
            columns: [
                attribute("id"): Column(sql: "a.id", kind: .integer),
                attribute("name"): Column(sql: "a.name", kind: .text),
                attribute("label"): Column(sql: "a.name", kind: .text),
            ],
            paramColumn: nil, defaultOrder: "a.id"),
        "nms:rtEvent": Table(
            from: "FROM rt_events ev",
            columns: [
                attribute("id"): Column(sql: "ev.id", kind: .integer),
                attribute("type"): Column(sql: "ev.type", kind: .text),
                attribute("wishedChannel"): Column(sql: "ev.wished_channel", kind: .integer),
                attribute("email"): Column(sql: "ev.email", kind: .text),
                attribute("registrationToken"): Column(sql: "ev.registration_token", kind: .text),
                attribute("status"): Column(sql: "ev.status", kind: .integer),
                attribute("created"): Column(sql: "ev.created_at", kind: .time),
                attribute("processing"): Column(sql: "ev.created_at", kind: .time),
                attribute("processed"): Column(sql: "ev.created_at", kind: .time),
                linked("mobileApp", "uuid"): Column(sql: "ev.app_key", kind: .text),
            ],
            paramColumn: nil, defaultOrder: "ev.id"),
        "xtk:option": Table(
            from: "FROM options o",
            columns: [
                attribute("name"): Column(sql: "o.name", kind: .text),
                attribute("dataType"): Column(sql: "o.data_type", kind: .integer),
                attribute("stringValue"): Column(sql: "CASE WHEN o.data_type = 6 THEN o.value END", kind: .text),
                attribute("longValue"): Column(sql: "CASE WHEN o.data_type = 3 THEN o.value END", kind: .text),
                attribute("doubleValue"): Column(sql: "CASE WHEN o.data_type = 5 THEN o.value END", kind: .text),
                attribute("timeStampValue"): Column(sql: "CASE WHEN o.data_type = 7 THEN o.value END", kind: .text),
                attribute("memoValue"): Column(sql: "CASE WHEN o.data_type = 12 THEN o.value END", kind: .text),
                attribute("description"): Column(sql: "o.description", kind: .text),
            ],
            paramColumn: nil, defaultOrder: "o.name"),
        "xtk:enumValue": Table(
            from: "FROM enum_values v",
            columns: [
                attribute("id"): Column(sql: "v.id", kind: .integer),
                attribute("name"): Column(sql: "v.name", kind: .text),
                attribute("label"): Column(sql: "v.label", kind: .text),
                attribute("img"): Column(sql: "v.img", kind: .text),
                attribute("order"): Column(sql: "v.ord", kind: .integer),
                linked("enum", "name"): Column(sql: "v.enum_name", kind: .text),
            ],
            paramColumn: nil, defaultOrder: "v.enum_name, v.ord, v.id"),
        // Fixed rows: the target mappings a mobile instance has.
        "nms:deliveryMapping": Table(
            from: """
                FROM (SELECT 1 AS id, 'mapRecipient' AS name, 'Recipients' AS label, 'nms:recipient' AS target, 2 AS
                exclusion UNION ALL SELECT 2, 'mapAppSubscriptionRcp', 'Subscriber applications', 'nms:appSubscriptionRcp',
                2) dm
                """,
            columns: [
                attribute("id"): Column(sql: "dm.id", kind: .integer),
                attribute("name"): Column(sql: "dm.name", kind: .text),
                attribute("label"): Column(sql: "dm.label", kind: .text),
                attribute("schema"): Column(sql: "dm.target", kind: .text),
                attribute("blackListAndroid"): Column(sql: "0", kind: .integer),
                attribute("blackListIos"): Column(sql: "0", kind: .integer),
                linked("storage", "exclusionType"): Column(sql: "dm.exclusion", kind: .integer),
            ],
            paramColumn: nil, defaultOrder: "dm.id"),
        // Fixed rows: this server as its own Message Center execution instance, at its real address.
        "nms:extAccount": Table(
            from: """
                FROM (SELECT 1 AS id, 'campaignMockExecution' AS name, 'campaign-mock (execution instance)' AS label,
                11 AS type, 1 AS active, ? AS server, ? AS port, 'mc' AS account, 1 AS message_center,
                1 AS execution_instance) x
                """,
            columns: [
                attribute("id"): Column(sql: "x.id", kind: .integer),
                attribute("name"): Column(sql: "x.name", kind: .text),
                attribute("label"): Column(sql: "x.label", kind: .text),
                attribute("type"): Column(sql: "x.type", kind: .integer),
                attribute("active"): Column(sql: "x.active", kind: .integer),
                attribute("server"): Column(sql: "x.server", kind: .text),
                attribute("port"): Column(sql: "x.port", kind: .integer),
                attribute("account"): Column(sql: "x.account", kind: .text),
                attribute("isMessageCenter"): Column(sql: "x.message_center", kind: .integer),
                attribute("executionInstanceId"): Column(sql: "x.execution_instance", kind: .integer),
            ],
            paramColumn: nil, defaultOrder: "x.id", fromValues: { [$0.url, Int64($0.port)] }),
    ]

    /// The schemas, for messages.
    package static var names: String { tables.keys.sorted().joined(separator: ", ") }
}

extension StoreReader {
    /// Runs a queryDef.
    ///
    /// - Throws: ``QueryError`` for an unknown schema or field, or a comparison the store cannot make.
    package func execute(_ query: QueryDefinition, instance: ExecutionInstance) throws -> QueryResult {
        let plan = try Self.plan(query, instance: instance)
        if query.operation == .count {
            return .count(Int(try connection.integer(plan.sql, plan.values)))
        }
        let rows = try connection.query(plan.sql, plan.values)
        return .rows(
            rows.map { row in
                plan.selected.enumerated().map { index, entry in (entry.0, Self.text(row[index], entry.1.kind)) }
            })
    }

    /// The SQL a queryDef runs as (what `BuildQuery` answers), with its bound values.
    package static func sql(_ query: QueryDefinition) throws -> String {
        try plan(query, instance: ExecutionInstance(url: "", port: 0)).sql
    }

    private static func plan(_ query: QueryDefinition, instance: ExecutionInstance) throws(QueryError) -> (
        sql: String, values: [any SQLiteBindable], selected: [(QueryDefinition.Field, QuerySchemas.Column)]
    ) {
        guard let table = QuerySchemas.tables[query.schema] else {
            throw QueryError("schema '\(query.schema)' is not supported (use \(QuerySchemas.names))")
        }
        var values: [any SQLiteBindable] = []
        func column(_ field: QueryDefinition.Field) throws(QueryError) -> QuerySchemas.Column {
            if let known = table.columns[field] { return known }
            guard field.link == nil, let param = table.paramColumn else {
                throw QueryError("'\(field)' is not a field of \(query.schema)")
            }
            values.append(field.attribute)
            return QuerySchemas.Column(sql: param, kind: .text)
        }
        func operand(_ operand: QueryOperand, against kind: QuerySchemas.Kind?) throws(QueryError) -> (
            String, QuerySchemas.Kind?
        ) {
            switch operand {
            case .field(let field):
                let found = try column(field)
                return (found.sql, found.kind)
            case .text(let text):
                if kind == .time {
                    guard let micros = Self.time(text) else {
                        throw QueryError("'\(text)' is not a date (YYYY-MM-DD HH:MM:SS)")
                    }
                    values.append(micros)
                } else {
                    values.append(text)
                }
                return ("?", nil)
            case .number(let text):
                values.append(Int64(text).map { $0 as any SQLiteBindable } ?? Double(text) ?? 0)
                return ("?", nil)
            }
        }
        /// The kind of a field operand (a literal on the other side is converted to it: a date, say).
        func kind(_ operand: QueryOperand) -> QuerySchemas.Kind? {
            guard case .field(let field) = operand else { return nil }
            return table.columns[field]?.kind ?? .text
        }
        func translate(_ condition: QueryCondition) throws(QueryError) -> String {
            switch condition {
            case .and(let left, let right): return "(\(try translate(left)) AND \(try translate(right)))"
            case .or(let left, let right): return "(\(try translate(left)) OR \(try translate(right)))"
            case .compare(let left, let comparison, let right):
                // Bound in order: the left side's values, then the right side's.
                let (leftSQL, _) = try operand(left, against: kind(right))
                let (rightSQL, _) = try operand(right, against: kind(left))
                return "(\(leftSQL) \(comparison.rawValue) \(rightSQL))"
            }
        }

        func whereClause() throws(QueryError) -> String {
            guard let condition = query.condition else { return "" }
            return "WHERE " + (try translate(condition))
        }

        if query.operation == .count {
            values += table.fromValues(instance)
            let whereSQL = try whereClause()
            return ("SELECT count(*) \(table.from) \(whereSQL)", values, [])
        }
        let selected = try query.fields.map { (field) throws(QueryError) in (field, try column(field)) }
        // Bound in the order the SQL names them: the selected columns', the FROM's, the condition's.
        values += table.fromValues(instance)
        let whereSQL = try whereClause()
        var order = try query.order.map { (entry) throws(QueryError) in
            "\(try column(entry.field).sql) \(entry.descending ? "DESC" : "ASC")"
        }
        order.append(table.defaultOrder)
        let limit = query.operation == .select ? query.lineCount : 2
        values.append(limit)
        values.append(query.operation == .select ? query.startLine : 0)
        let sql =
            "SELECT \(selected.map(\.1.sql).joined(separator: ", ")) \(table.from) \(whereSQL) "
            + "ORDER BY \(order.joined(separator: ", ")) LIMIT ? OFFSET ?"
        return (sql, values, selected)
    }

    /// A value as text in the form Campaign writes it (times as `2026-11-22 17:33:09.670Z`).
    private static func text(_ value: SQLiteValue, _ kind: QuerySchemas.Kind) -> String? {
        switch value {
        case .null: return nil
        case .integer(let number):
            return kind == .time
                ? RFC3339.string(microsecondsSince1970: number).replacing("T", with: " ") : String(number)
        case .real(let number): return String(number)
        case .text(let text): return text
        case .blob(let bytes): return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// `2026-11-22 17:33:09` (UTC), with optional fractions and `Z`, or RFC 3339, in microseconds.
    private static func time(_ text: String) -> Int64? {
        if let micros = RFC3339.microseconds(text) { return micros }
        var normalized = text.replacing(" ", with: "T")
        if !normalized.hasSuffix("Z") { normalized += "Z" }
        if normalized.count == 11 { normalized = String(normalized.dropLast(2)) + "T00:00:00Z" }
        return RFC3339.microseconds(normalized)
    }
}

/// This server as Campaign's `nms:extAccount` describes an execution instance: its URL (scheme, host and
/// port as clients on this machine reach it) and its port.
package struct ExecutionInstance: Sendable, Equatable {
    package var url: String
    package var port: Int

    package init(url: String, port: Int) {
        self.url = url
        self.port = port
    }
}
