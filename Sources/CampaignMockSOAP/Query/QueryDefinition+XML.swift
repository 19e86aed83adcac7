import CampaignMockStorage
import CampaignMockSupport

extension QueryDefinition {
    /// Reads a `<queryDef schema="…" operation="…" lineCount="…">` element; `requireSelection` is false
    /// for `SelectAll`, which fills the selection in.
    init(_ element: MarkupElement, requireSelection: Bool = true) throws(QueryError) {
        guard element.localName == "queryDef" else {
            throw QueryError("the entity must be a queryDef, not <\(element.name)>")
        }
        guard let schema = element.attribute("schema"), !schema.isEmpty else {
            throw QueryError("queryDef has no schema")
        }
        let operationName = element.attribute("operation") ?? "select"
        guard let operation = Operation(rawValue: operationName) else {
            throw QueryError("operation '\(operationName)' is not supported (use select, get, getIfExists or count)")
        }
        var lineCount = Self.defaultLineCount
        if let text = element.attribute("lineCount") {
            guard let number = Int(text), number >= 1 else { throw QueryError("lineCount must be a positive integer") }
            lineCount = min(number, Self.defaultLineCount)
        }
        var startLine = 0
        if let text = element.attribute("startLine") {
            guard let number = Int(text), number >= 0 else { throw QueryError("startLine must be 0 or more") }
            startLine = number
        }
        var aliases: [Field: String] = [:]
        var analyzed: Set<Field> = []
        let fields = try (element.element("select")?.elements ?? []).map { (node) throws(QueryError) -> Field in
            guard node.localName == "node", let expression = node.attribute("expr") else {
                throw QueryError("select may only hold <node expr=\"…\"/>")
            }
            let field = try QueryExpression.field(expression)
            if let alias = node.attribute("alias") {
                let name = alias.hasPrefix("@") ? String(alias.dropFirst()) : alias
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                    throw QueryError("alias '\(alias)' is not an attribute name (@name)")
                }
                aliases[field] = name
            }
            if node.attribute("analyze") == "true" { analyzed.insert(field) }
            return field
        }
        if fields.isEmpty && operation != .count && requireSelection { throw QueryError("queryDef has no select/node") }
        var condition: QueryCondition?
        for node in element.element("where")?.elements ?? [] {
            guard node.localName == "condition", let expression = node.attribute("expr") else {
                throw QueryError("where may only hold <condition expr=\"…\"/>")
            }
            let next = try QueryExpression.condition(expression)
            switch (condition, node.attribute("boolOperator")?.uppercased() ?? "AND") {
            case (nil, _): condition = next
            case (let previous?, "AND"): condition = .and(previous, next)
            case (let previous?, "OR"): condition = .or(previous, next)
            case (_, let other): throw QueryError("boolOperator '\(other)' is not supported (use AND or OR)")
            }
        }
        let order = try (element.element("orderBy")?.elements ?? []).map { (node) throws(QueryError) -> Order in
            guard node.localName == "node", let expression = node.attribute("expr") else {
                throw QueryError("orderBy may only hold <node expr=\"…\"/>")
            }
            return Order(field: try QueryExpression.field(expression), descending: node.attribute("sortDesc") == "true")
        }
        self.init(
            schema: schema, operation: operation, fields: fields, condition: condition, order: order,
            lineCount: lineCount, startLine: startLine, aliases: aliases, analyzed: analyzed)
    }
}
