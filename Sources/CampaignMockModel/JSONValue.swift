/// Any JSON value, for reading documents whose shape is checked by hand (config files, snapshots).
public enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// An object's field; nil for anything else or a field it lacks.
    public subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    /// A scalar as text (`12`, not `12.0`); nil for null, arrays and objects.
    public var text: String? {
        switch self {
        case .string(let value): return value
        case .number(let value):
            return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .bool(let value): return String(value)
        default: return nil
        }
    }

    /// An array's items; empty for anything else.
    public var items: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }

    /// The first object field of this value that `other` lacks, with its path (`faults.0.token`) and
    /// value; nil when every field of this value is also in `other`. Arrays are compared by position.
    public func firstFieldMissing(from other: JSONValue, at path: String = "") -> (String, JSONValue)? {
        switch (self, other) {
        case (.object(let fields), .object(let otherFields)):
            for key in fields.keys.sorted() {
                let place = path.isEmpty ? key : "\(path).\(key)"
                guard let counterpart = otherFields[key] else { return (place, fields[key]!) }
                if let found = fields[key]!.firstFieldMissing(from: counterpart, at: place) { return found }
            }
            return nil
        case (.array(let items), .array(let otherItems)):
            for (index, (item, counterpart)) in zip(items, otherItems).enumerated() {
                if let found = item.firstFieldMissing(
                    from: counterpart, at: path.isEmpty ? "\(index)" : "\(path).\(index)")
                {
                    return found
                }
            }
            return nil
        default:
            return nil
        }
    }

    /// A string, number or boolean as the text a flag would carry; nil for other values.
    public var scalarText: String? {
        switch self {
        case .string(let value): return value
        case .bool(let value): return value ? "true" : "false"
        case .number(let value):
            return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        default: return nil
        }
    }
}

extension JSONValue {
    /// The text of a string value (nil for any other kind; ``text`` also writes numbers and booleans).
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
