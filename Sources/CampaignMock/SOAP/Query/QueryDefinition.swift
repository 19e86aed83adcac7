/// An `xtk:queryDef` as `ExecuteQuery` receives it (docs/protocol.md §5.5), read and checked; the store runs it.
package struct QueryDefinition: Sendable, Equatable {
    package enum Operation: String, Sendable {
        case select, get, getIfExists, count
    }

    /// A field: `@userKey` (an attribute of the schema) or `[mobileApp/@uuid]` (one through a link).
    package struct Field: Sendable, Hashable, CustomStringConvertible {
        /// `nil` for the schema itself, `mobileApp` for a link.
        package let link: String?
        package let attribute: String

        package var description: String { link.map { "[\($0)/@\(attribute)]" } ?? "@\(attribute)" }
    }

    package struct Order: Sendable, Equatable {
        package let field: Field
        package let descending: Bool
    }

    /// `nms:appSubscriptionRcp`.
    package var schema: String
    package var operation: Operation
    package var fields: [Field]
    package var condition: QueryCondition?
    package var order: [Order]
    /// Most rows returned.
    package var lineCount: Int
    /// Rows skipped first (paging).
    package var startLine = 0
    /// Output names chosen with `alias="@name"`, by field.
    package var aliases: [Field: String] = [:]
    /// Enumerated fields selected with `analyze="true"`: the answer adds their value's name and label.
    package var analyzed: Set<Field> = []

    /// Rows a query returns when `lineCount` is not given.
    package static let defaultLineCount = 10_000
}

extension QueryDefinition {
    /// Every field the query names: selected, compared and sorted.
    package var namedFields: [Field] {
        func fields(_ condition: QueryCondition?) -> [Field] {
            switch condition {
            case nil: return []
            case .and(let left, let right), .or(let left, let right): return fields(left) + fields(right)
            case .compare(let left, _, let right):
                return [left, right].compactMap { operand in
                    if case .field(let field) = operand { return field }
                    return nil
                }
            }
        }
        return self.fields + fields(condition) + order.map(\.field)
    }
}

/// A `where` condition.
package indirect enum QueryCondition: Sendable, Equatable {
    case compare(QueryOperand, QueryOperator, QueryOperand)
    case and(QueryCondition, QueryCondition)
    case or(QueryCondition, QueryCondition)
}

package enum QueryOperand: Sendable, Equatable {
    case field(QueryDefinition.Field)
    case text(String)
    /// A number literal as written (`12`, `-3.5`).
    case number(String)
}

package enum QueryOperator: String, Sendable, Equatable, CaseIterable {
    case equal = "="
    case notEqual = "<>"
    case less = "<"
    case greater = ">"
    case lessOrEqual = "<="
    case greaterOrEqual = ">="
}

/// Why a queryDef cannot be run, said to the SOAP client.
package struct QueryError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

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
