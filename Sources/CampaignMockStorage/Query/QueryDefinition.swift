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

        package init(
            link: String?, attribute: String
        ) {
            self.link = link
            self.attribute = attribute
        }
    }

    package struct Order: Sendable, Equatable {
        package let field: Field
        package let descending: Bool

        package init(
            field: Field, descending: Bool
        ) {
            self.field = field
            self.descending = descending
        }
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

    package init(
        schema: String, operation: Operation, fields: [Field], condition: QueryCondition? = nil, order: [Order],
        lineCount: Int, startLine: Int = 0, aliases: [Field: String] = [:], analyzed: Set<Field> = []
    ) {
        self.schema = schema
        self.operation = operation
        self.fields = fields
        self.condition = condition
        self.order = order
        self.lineCount = lineCount
        self.startLine = startLine
        self.aliases = aliases
        self.analyzed = analyzed
    }
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
