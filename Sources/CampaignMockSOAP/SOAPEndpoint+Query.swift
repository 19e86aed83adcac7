import CampaignMockRuntime
import CampaignMockStorage
import CampaignMockSupport

/// `xtk:queryDef`: ExecuteQuery, SelectAll, BuildQuery and BuildQueryEx (docs/protocol.md §5.5). The
/// queryDef is the method's object, the first parameter after the session token, as both the NLWS way
/// (acc-js-sdk's `NLWS.xtkQueryDef.create(q).executeQuery()`) and the WSDL's `entity` send it.
extension SOAPEndpoint {
    func executeQuery(_ call: SOAPCall, _ method: SchemaCatalogue.Method) throws(SOAPFault) -> EndpointResult {
        let (query, schema) = try queryDefinition(call)
        let result: QueryResult
        do {
            let instance = server.executionInstance
            result = try store.read { try $0.execute(query, instance: instance) }
        } catch let error as QueryError {
            throw .methodFailed(call.method, service: call.service, error.message)
        } catch {
            throw SOAPFault(.server, "Error while executing the query", detail: "\(error)")
        }
        let name = String(query.schema.split(separator: ":").last ?? "")
        let output: String
        switch (result, query.operation) {
        case (.count(let count), _):
            output = XMLOutput.element(name, [("count", String(count))])
        case (.rows(let rows), .select):
            output = XMLOutput.element(
                "\(name)-collection", content: rows.map { Self.element(name, $0, query, schema) }.joined())
        case (.rows(let rows), .get):
            guard rows.count == 1 else {
                throw .methodFailed(
                    call.method, service: call.service, rows.isEmpty ? "No record found" : "More than one record found")
            }
            output = Self.element(name, rows[0], query, schema)
        case (.rows(let rows), _):
            output = rows.first.map { Self.element(name, $0, query, schema) } ?? XMLOutput.element(name)
        }
        return EndpointResult(response: SOAPResponse.outputs(method, service: call.service, [output]))
    }

    /// `SelectAll(distinct)`: answers the queryDef with a `select` node for every field of its schema.
    func selectAll(_ call: SOAPCall, _ method: SchemaCatalogue.Method) throws(SOAPFault) -> EndpointResult {
        let element = try call.object()
        let (query, schema) = try queryDefinition(call, requireSelection: false)
        let nodes = schema.fieldTypes.keys.sorted().map { XMLOutput.element("node", [("expr", $0)]) }
        let attributes = element.attributes.map { ($0.name, $0.value) }
        let others = element.elements.filter { $0.localName != "select" }.map(XMLOutput.write)
        let updated = XMLOutput.element(
            "queryDef", attributes, content: XMLOutput.element("select", content: nodes.joined()) + others.joined())
        _ = query
        return EndpointResult(
            response: SOAPResponse.method(
                call.method, service: call.service, SOAPResponse.document("entity", updated)))
    }

    /// `BuildQuery` → the SQL the query runs as here; `BuildQueryEx` adds the Campaign types of the selected
    /// fields, comma-separated.
    func buildQuery(_ call: SOAPCall, _ method: SchemaCatalogue.Method) throws(SOAPFault) -> EndpointResult {
        let (query, schema) = try queryDefinition(call)
        let sql: String
        do {
            sql = try StoreReader.sql(query).split(whereSeparator: \.isNewline).joined(separator: " ")
        } catch {
            throw .methodFailed(call.method, service: call.service, "\(error)")
        }
        let types = query.fields.map { schema.fieldTypes[$0.description] ?? "string" }.joined(separator: ",")
        let values = method.outputs.count == 2 ? [sql, types] : [sql]
        return EndpointResult(response: SOAPResponse.outputs(method, service: call.service, values))
    }

    /// The call's queryDef, checked against the catalogue: a schema it knows, fields its schema declares.
    private func queryDefinition(_ call: SOAPCall, requireSelection: Bool = true) throws(SOAPFault) -> (
        QueryDefinition, SchemaCatalogue.Schema
    ) {
        let element = try call.object()
        do throws(QueryError) {
            var query = try QueryDefinition(element, requireSelection: requireSelection)
            guard let schema = SchemaCatalogue.builtIn.schema(query.schema), QuerySchemas.tables[query.schema] != nil
            else {
                throw QueryError("schema '\(query.schema)' is not supported (use \(QuerySchemas.names))")
            }
            for field in query.namedFields {
                let declared =
                    field.link.map { schema.links.contains($0) } ?? schema.attributes.contains(field.attribute)
                guard declared || (field.link == nil && schema.isExtendedByParams) else {
                    throw QueryError("'\(field)' is not a field of \(query.schema)")
                }
            }
            query.analyzed = query.analyzed.filter { schema.enumeratedFields[$0.description] != nil }
            return (query, schema)
        } catch {
            throw .methodFailed(call.method, service: call.service, error.message)
        }
    }

    /// One row: `@x` fields as attributes (named by their alias when one was given), `[link/@x]` fields as
    /// attributes of a `<link/>` child; an analyzed enumerated field adds `xName` and `xLabel`.
    private static func element(
        _ name: String, _ row: [(field: QueryDefinition.Field, value: String?)], _ query: QueryDefinition,
        _ schema: SchemaCatalogue.Schema
    ) -> String {
        func attributes(_ entry: (field: QueryDefinition.Field, value: String?)) -> [(String, String)] {
            guard let value = entry.value else { return [] }
            let attribute = query.aliases[entry.field] ?? entry.field.attribute
            var result = [(attribute, value)]
            if query.analyzed.contains(entry.field), let enumeration = schema.enumeratedFields[entry.field.description],
                let match = schema.enumerations[enumeration]?.first(where: { $0.value == value })
            {
                result += [(attribute + "Name", match.name), (attribute + "Label", match.label)]
            }
            return result
        }
        let onRoot = row.filter { $0.field.link == nil || query.aliases[$0.field] != nil }
        let linked = row.filter { $0.field.link != nil && query.aliases[$0.field] == nil }
        var links: [String] = []
        for entry in linked { if let link = entry.field.link, !links.contains(link) { links.append(link) } }
        let children = links.map { link in
            XMLOutput.element(link, linked.filter { $0.field.link == link }.flatMap(attributes))
        }
        return XMLOutput.element(
            name, onRoot.flatMap(attributes), content: children.isEmpty ? nil : children.joined())
    }
}
