import CampaignMockHTTP
import CampaignMockJournal
import CampaignMockModel
import CampaignMockStorage
import CampaignMockSupport
import CampaignMockSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An admin API failure, answered as JSON `{ "error": "…" }`.
package struct AdminError: HTTPResponseError, Equatable {
    let status: HTTPStatus
    let message: String

    init(_ status: HTTPStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    var response: HTTPResponse {
        AdminResponse.json(status, ErrorAnswer(error: message))
    }
}

/// JSON responses for the admin API: sorted keys, so output is stable and diff-friendly.
enum AdminResponse {
    static func json(_ status: HTTPStatus, _ value: some Encodable) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            // DEL and C1 escaped too: a device-chosen text reaches the console, the CLI and CI logs.
            let body = JSONText.escapingControls(Array(try encoder.encode(value)))
            return .content(status, type: "application/json", body)
        } catch {
            return .content(
                .internalServerError, type: "application/json",
                Array("{\"error\":\"cannot encode the response\"}".utf8))
        }
    }

    /// Decodes a JSON request body, or a 400 saying what is wrong with it.
    static func decode<T: Codable>(_ type: T.Type, from request: HTTPRequest) throws -> T {
        guard !request.body.isEmpty else { throw AdminError(.badRequest, "expected a JSON body") }
        switch JSONCheck.problem(in: request.body) {
        case .duplicateKey(let key, let path):
            throw AdminError(.badRequest, "field " + JSONCheck.Problem.duplicateKey(key: key, path: path).description)
        case .syntax(let line, let column, let reason):
            throw AdminError(.badRequest, "the body is not valid JSON: line \(line), column \(column): \(reason)")
        case .overLimit(let limit, let path):
            throw AdminError(
                .badRequest, "the body has " + JSONCheck.Problem.overLimit(limit: limit, path: path).description)
        case nil: break
        }
        return try decodeChecked(type, from: request.body)
    }

    /// Decodes JSON that ``JSONCheck`` found well-formed, or a 400 naming the field that is wrong;
    /// `place` is the path of the value in a larger document (`devices.3`), prefixed to the field names.
    static func decodeChecked<T: Codable>(_ type: T.Type, from bytes: [UInt8], at place: String = "") throws -> T {
        func field(_ path: [any CodingKey]) -> String {
            ([place] + path.map(\.stringValue)).filter { !$0.isEmpty }.joined(separator: ".")
        }
        let decoded: T
        do {
            decoded = try JSONDecoder().decode(type, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, context) {
            throw AdminError(.badRequest, "missing field '\(field(context.codingPath + [key]))'")
        } catch let DecodingError.typeMismatch(_, context) {
            throw AdminError(.badRequest, "field '\(field(context.codingPath))' has the wrong type")
        } catch let DecodingError.valueNotFound(_, context) {
            throw AdminError(.badRequest, "field '\(field(context.codingPath))' must not be null")
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            let detail = context.debugDescription.contains(" is not one of ") ? ": \(context.debugDescription)" : ""
            throw AdminError(.badRequest, "field '\(field(context.codingPath))' has an invalid value\(detail)")
        } catch {
            throw AdminError(.badRequest, place.isEmpty ? "the body is not valid JSON" : "'\(place)' is not valid")
        }
        try refuseUnknownFields(bytes, decoded, at: place)
        return decoded
    }

    /// Refuses fields the model does not have (a typo such as `delayms` would otherwise be ignored) and
    /// `null` (the API never writes it; leave a field out instead). The body is compared with the model
    /// encoded again: whatever the model did not keep was unknown or null.
    private static func refuseUnknownFields<T: Encodable>(_ body: [UInt8], _ decoded: T, at place: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let encoded = try? encoder.encode(decoded) else { return }
        // What the export wrote comes back byte for byte (a state import's rows): nothing was left out.
        if encoded.elementsEqual(body) { return }
        guard let sent = try? JSONDecoder().decode(JSONValue.self, from: Data(body)),
            let kept = try? JSONDecoder().decode(JSONValue.self, from: encoded),
            let (found, value) = sent.firstFieldMissing(from: kept)
        else { return }
        let path = place.isEmpty ? found : place + "." + found
        if value == .null { throw AdminError(.badRequest, "field '\(path)' is null; leave it out instead") }
        throw AdminError(.badRequest, "unknown field '\(path)'")
    }

    /// The query items of `request`, or a 400 naming the broken escape.
    static func query(_ request: HTTPRequest) throws -> [String: String] {
        guard let items = PercentEncoding.queryItems(request.query) else {
            throw AdminError(.badRequest, "malformed percent-encoding in the query string")
        }
        var result: [String: String] = [:]
        for item in items {
            guard result[item.name] == nil else {
                throw AdminError(.badRequest, "query parameter '\(item.name)' is repeated")
            }
            result[item.name] = item.value
        }
        return result
    }

    /// The page a list asks for: `before=ID` (newest first, the default), `after=ID` (oldest first), or
    /// both (the ids between, oldest first).
    static func paging(_ query: [String: String]) throws -> Paging {
        let before = try query["before"].map { _ in try integer(query, "before", in: 1...Int64.max, default: 1) }
        if query["after"] != nil {
            return .oldestFirst(after: try integer(query, "after", in: 0...Int64.max, default: 0), before: before)
        }
        return .newestFirst(before: before)
    }

    /// Refuses query parameters other than `allowed` (and those starting with `prefix`).
    static func allowOnly(_ query: [String: String], _ allowed: [String], prefix: String? = nil) throws {
        let unknown = query.keys.filter { key in !allowed.contains(key) && !(prefix.map(key.hasPrefix) ?? false) }
        if let first = unknown.sorted().first {
            throw AdminError(.badRequest, "unknown parameter '\(first)' (use \(allowed.joined(separator: ", ")))")
        }
    }

    /// An integer query parameter within `range`, or `fallback` when absent.
    static func integer(
        _ query: [String: String], _ name: String, in range: ClosedRange<Int64>, default fallback: Int64
    )
        throws -> Int64
    {
        guard let text = query[name] else { return fallback }
        guard let value = Int64(text), range.contains(value) else {
            throw AdminError(
                .badRequest, "'\(name)' must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
