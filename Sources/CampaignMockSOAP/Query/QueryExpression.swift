import CampaignMockStorage

/// The expression language of `queryDef` conditions, the part this mock supports:
///
///     condition  := disjunct ( OR disjunct )*
///     disjunct   := term ( AND term )*
///     term       := "(" condition ")" | operand operator operand
///     operand    := @attribute | [link/@attribute] | 'text' ('' for a quote) | number
///     operator   := = | <> | != | < | > | <= | >=
///
/// Anything else (functions, IS NULL, LIKE, …) is refused with a message naming it.
enum QueryExpression {
    private enum Token: Equatable {
        case field(QueryDefinition.Field)
        case text(String)
        case number(String)
        case comparison(QueryOperator)
        case and, or, open, close
    }

    /// Parses a field expression (`@userKey`, `[mobileApp/@uuid]`).
    static func field(_ text: String) throws(QueryError) -> QueryDefinition.Field {
        guard let tokens = try? tokenize(text), tokens.count == 1, case .field(let field) = tokens[0] else {
            throw QueryError("'\(text)' is not a field (use @attribute or [link/@attribute])")
        }
        return field
    }

    /// Parses a condition expression.
    static func condition(_ text: String) throws(QueryError) -> QueryCondition {
        var parser = Parser(tokens: try tokenize(text), text: text)
        let result = try parser.disjunction()
        guard parser.position == parser.tokens.count else { throw QueryError("unexpected text in condition '\(text)'") }
        return result
    }

    private struct Parser {
        let tokens: [Token]
        let text: String
        var position = 0

        /// Whether `token` comes next; steps over it when it does.
        mutating func skip(_ token: Token) -> Bool {
            guard position < tokens.count, tokens[position] == token else { return false }
            position += 1
            return true
        }

        mutating func disjunction() throws(QueryError) -> QueryCondition {
            var result = try conjunction()
            while skip(.or) { result = .or(result, try conjunction()) }
            return result
        }

        mutating func conjunction() throws(QueryError) -> QueryCondition {
            var result = try term()
            while skip(.and) { result = .and(result, try term()) }
            return result
        }

        mutating func term() throws(QueryError) -> QueryCondition {
            guard position < tokens.count else { throw QueryError("condition '\(text)' ends too early") }
            if skip(.open) {
                let inner = try disjunction()
                guard skip(.close) else { throw QueryError("missing ')' in condition '\(text)'") }
                return inner
            }
            let left = try operand()
            guard position < tokens.count, case .comparison(let comparison) = tokens[position] else {
                throw QueryError("expected a comparison (=, <>, <, >, <=, >=) in '\(text)'")
            }
            position += 1
            return .compare(left, comparison, try operand())
        }

        mutating func operand() throws(QueryError) -> QueryOperand {
            guard position < tokens.count else { throw QueryError("condition '\(text)' ends too early") }
            defer { position += 1 }
            switch tokens[position] {
            case .field(let field): return .field(field)
            case .text(let value): return .text(value)
            case .number(let value): return .number(value)
            default: throw QueryError("expected a field or a literal in '\(text)'")
            }
        }
    }

    private static func tokenize(_ text: String) throws(QueryError) -> [Token] {
        let characters = Array(text)
        var tokens: [Token] = []
        var index = 0
        func isNameCharacter(_ character: Character) -> Bool {
            character.isLetter || character.isNumber || character == "_" || character == "-"
        }
        while index < characters.count {
            let character = characters[index]
            switch character {
            case " ", "\t", "\n", "\r":
                index += 1
            case "@":
                var end = index + 1
                while end < characters.count, isNameCharacter(characters[end]) { end += 1 }
                guard end > index + 1 else { throw QueryError("'@' without an attribute name in '\(text)'") }
                tokens.append(.field(.init(link: nil, attribute: String(characters[(index + 1)..<end]))))
                index = end
            case "[":
                guard let close = characters[index...].firstIndex(of: "]") else {
                    throw QueryError("missing ']' in '\(text)'")
                }
                let inside = String(characters[(index + 1)..<close])
                let parts = inside.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == 2, parts[1].hasPrefix("@"), !parts[0].isEmpty, parts[1].count > 1,
                    parts[0].allSatisfy(isNameCharacter), parts[1].dropFirst().allSatisfy(isNameCharacter)
                else { throw QueryError("'[\(inside)]' is not supported (use [link/@attribute])") }
                tokens.append(.field(.init(link: String(parts[0]), attribute: String(parts[1].dropFirst()))))
                index = close + 1
            case "'":
                var value = ""
                var end = index + 1
                while true {
                    guard end < characters.count else { throw QueryError("unterminated string in '\(text)'") }
                    if characters[end] == "'" {
                        if end + 1 < characters.count && characters[end + 1] == "'" {
                            value.append("'")
                            end += 2
                            continue
                        }
                        break
                    }
                    value.append(characters[end])
                    end += 1
                }
                tokens.append(.text(value))
                index = end + 1
            case "(":
                tokens.append(.open)
                index += 1
            case ")":
                tokens.append(.close)
                index += 1
            case "=":
                tokens.append(.comparison(.equal))
                index += 1
            case "<", ">", "!":
                let next = index + 1 < characters.count ? characters[index + 1] : " "
                switch (character, next) {
                case ("<", ">"), ("!", "="):
                    tokens.append(.comparison(.notEqual))
                    index += 2
                case ("<", "="):
                    tokens.append(.comparison(.lessOrEqual))
                    index += 2
                case (">", "="):
                    tokens.append(.comparison(.greaterOrEqual))
                    index += 2
                case ("<", _):
                    tokens.append(.comparison(.less))
                    index += 1
                case (">", _):
                    tokens.append(.comparison(.greater))
                    index += 1
                default: throw QueryError("'!' must be followed by '=' in '\(text)'")
                }
            case "-", "0"..."9":
                var end = index + 1
                while end < characters.count, characters[end].isNumber || characters[end] == "." { end += 1 }
                let number = String(characters[index..<end])
                guard Double(number) != nil else { throw QueryError("'\(number)' is not a number in '\(text)'") }
                tokens.append(.number(number))
                index = end
            default:
                guard character.isLetter else { throw QueryError("unexpected '\(character)' in '\(text)'") }
                var end = index
                while end < characters.count, isNameCharacter(characters[end]) { end += 1 }
                let word = String(characters[index..<end])
                switch word.lowercased() {
                case "and": tokens.append(.and)
                case "or": tokens.append(.or)
                // Booleans are stored as 0 and 1, as Campaign stores them.
                case "true": tokens.append(.number("1"))
                case "false": tokens.append(.number("0"))
                default: throw QueryError("'\(word)' is not supported in conditions (only comparisons with and/or)")
                }
                index = end
            }
        }
        return tokens
    }
}
