package import CampaignMockHTTP

/// Checks a JSON text against RFC 8259 before Foundation decodes it, for what Foundation lets through or
/// reports without a place:
/// - a syntax error, with its line and column (Foundation says only "not valid JSON");
/// - what Foundation accepts but JSON is not: a comma before `}` or `]`, a comment;
/// - an object key given twice. Foundation's decoder keeps one of them silently, so a body such as
///   `{"status": 200, "status": 500}` would mean something other than what its author may think
///   (RFC 8259 §4: names "SHOULD be unique");
/// - what would cost memory out of proportion before a decoder sees it: keys are kept to find repeats, so
///   a key longer than ``maximumKeyLength`` or an object with more than ``maximumKeys`` is refused.
package enum JSONCheck {
    package enum Problem: Error, Equatable, CustomStringConvertible {
        /// Line and column (both from 1, the column counting characters) of the first byte that is wrong.
        case syntax(line: Int, column: Int, reason: String)
        /// The key, and the path of the object holding it (`faults.0`; empty at the top).
        case duplicateKey(key: String, path: String)
        /// Which limit was passed (`a key longer than 1024 bytes`), and the path of the object.
        case overLimit(limit: String, path: String)

        package var description: String {
            switch self {
            case .syntax(let line, let column, let reason): "line \(line), column \(column): \(reason)"
            case .duplicateKey(let key, let path): "'\(key)' is given twice" + (path.isEmpty ? "" : " in '\(path)'")
            case .overLimit(let limit, let path): limit + (path.isEmpty ? "" : " in '\(path)'")
            }
        }
    }

    /// The first problem of the text, or nil when it is one well-formed JSON value without repeated keys.
    package static func problem(in bytes: [UInt8]) -> Problem? {
        var reader = Reader(bytes)
        return reader.check()
    }

    /// A member of the top-level object: its name and where its value's bytes are.
    package struct Member: Equatable {
        package let name: String
        package let range: Range<Int>
    }

    /// Checks a text read a piece at a time (a body of gigabytes costs a piece of memory) and says where
    /// the top-level object's members are; none when the text is not an object.
    package static func members(of source: any ByteSource) -> Result<[Member], Problem> {
        var reader = Reader(source)
        if let problem = reader.check() { return .failure(problem) }
        return .success(reader.members)
    }

    /// Nesting deeper than this is refused rather than read with the stack. Low enough for Foundation's
    /// decoder after it on a 512 KiB stack, what macOS gives Dispatch's threads (it crashed at 180 levels).
    static let maximumDepth = 64
    /// The longest object key, in bytes as written; no key the mock reads comes near it.
    package static let maximumKeyLength = 1024
    /// The most keys one object may have.
    package static let maximumKeys = 1000

    /// Reads through a window on the source: for a text in memory, the window is the whole text.
    private struct Reader {
        let source: any ByteSource
        var window: [UInt8]
        var windowStart = 0
        var position = 0
        /// Line and column of `windowStart`, for messages.
        var line = 1
        var column = 1
        var members: [Member] = []
        var readFailure: String?

        static let windowSize = 256 << 10

        init(_ bytes: [UInt8]) {
            source = bytes
            window = bytes
        }

        init(_ source: any ByteSource) {
            self.source = source
            window = []
        }

        mutating func check() -> Problem? {
            do throws(Problem) {
                skipSpace()
                try value(path: [], depth: 0)
                skipSpace()
                if current != nil { throw syntax("unexpected text after the JSON value") }
                return nil
            } catch {
                return error
            }
        }

        var current: UInt8? {
            mutating get {
                let index = position - windowStart
                if index < window.count { return window[index] }
                return available(1) ? window[position - windowStart] : nil
            }
        }

        /// Whether `count` bytes from the position are in the window, reading more when they are not.
        mutating func available(_ count: Int) -> Bool {
            while position - windowStart + count > window.count {
                let end = windowStart + window.count
                guard end < source.count, readFailure == nil else { return false }
                let more: [UInt8]
                do {
                    more = try source.read(at: end, length: max(Self.windowSize, count))
                } catch {
                    readFailure = "\(error)"
                    return false
                }
                if more.isEmpty { return false }
                // A few bytes before the position stay, for a message that points back at an escape.
                let dropped = max(0, min(position - windowStart, window.count) - 8)
                for byte in window[..<dropped] { advance(byte) }
                window = Array(window[dropped...]) + more
                windowStart += dropped
            }
            return true
        }

        private mutating func advance(_ byte: UInt8) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }

        func syntax(_ reason: String) -> Problem {
            var place = self
            for byte in window[..<max(0, min(position - windowStart, window.count))] { place.advance(byte) }
            let reason = readFailure.map { "the text could not be read: \($0)" } ?? reason
            return .syntax(line: place.line, column: place.column, reason: reason)
        }

        /// What the byte at the position is, for a message: `'x'` or "the end of the text".
        var found: String {
            mutating get {
                guard let byte = current else { return "the end of the text" }
                if byte == UInt8(ascii: "/") { return "'/' (comments are not JSON)" }
                if byte >= 0x20, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
                return "byte 0x" + String(byte, radix: 16, uppercase: true)
            }
        }

        mutating func skipSpace() {
            while let byte = current,
                byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
            {
                position += 1
            }
        }

        mutating func value(path: [String], depth: Int) throws(Problem) {
            guard depth < JSONCheck.maximumDepth else { throw syntax("nested deeper than \(JSONCheck.maximumDepth)") }
            guard let byte = current else { throw syntax("expected a value, found \(found)") }
            switch byte {
            case UInt8(ascii: "{"): try object(path: path, depth: depth)
            case UInt8(ascii: "["): try array(path: path, depth: depth)
            case UInt8(ascii: "\""): _ = try string(keeping: false, path: path)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default: throw syntax("expected a value, found \(found)")
            }
        }

        mutating func object(path: [String], depth: Int) throws(Problem) {
            var keys: Set<String> = []
            try elements(closing: UInt8(ascii: "}")) { (reader) throws(Problem) in
                guard reader.current == UInt8(ascii: "\"") else {
                    throw reader.syntax("expected a key in double quotes, found \(reader.found)")
                }
                guard keys.count < JSONCheck.maximumKeys else {
                    throw .overLimit(
                        limit: "an object with more than \(JSONCheck.maximumKeys) keys",
                        path: path.joined(separator: "."))
                }
                let key = try reader.string(keeping: true, path: path)
                guard keys.insert(key).inserted else {
                    throw .duplicateKey(key: key, path: path.joined(separator: "."))
                }
                reader.skipSpace()
                guard reader.current == UInt8(ascii: ":") else {
                    throw reader.syntax("expected ':' after \"\(key)\", found \(reader.found)")
                }
                reader.position += 1
                reader.skipSpace()
                let start = reader.position
                try reader.value(path: path + [key], depth: depth + 1)
                if depth == 0 { reader.members.append(Member(name: key, range: start..<reader.position)) }
            }
        }

        mutating func array(path: [String], depth: Int) throws(Problem) {
            var index = 0
            try elements(closing: UInt8(ascii: "]")) { (reader) throws(Problem) in
                try reader.value(path: path + [String(index)], depth: depth + 1)
                index += 1
            }
        }

        /// An object's or an array's elements, from its opening byte to after its `closing` one: none, or
        /// `element`s (each read from its first byte on) separated by commas, with none after the last.
        private mutating func elements(closing: UInt8, _ element: (inout Reader) throws(Problem) -> Void)
            throws(Problem)
        {
            position += 1
            skipSpace()
            if current == closing {
                position += 1
                return
            }
            while true {
                try element(&self)
                skipSpace()
                switch current {
                case UInt8(ascii: ","):
                    position += 1
                    skipSpace()
                    if current == closing {
                        throw syntax("a comma before '\(Character(Unicode.Scalar(closing)))' (JSON allows none)")
                    }
                case closing:
                    position += 1
                    return
                default: throw syntax("expected ',' or '\(Character(Unicode.Scalar(closing)))', found \(found)")
                }
            }
        }

        /// The string at the opening quote, unescaped when `keeping` (else checked only and empty; a kept
        /// one is a key, of ``maximumKeyLength`` bytes at most); the position ends after its closing quote.
        mutating func string(keeping: Bool, path: [String]) throws(Problem) -> String {
            position += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            var kept = 0
            func flush() {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
            while true {
                guard let byte = current else { throw syntax("a string without its closing quote") }
                if byte == UInt8(ascii: "\"") { break }
                if byte < 0x20 { throw syntax("a control character in a string (write it as \\u00XX)") }
                if keeping {
                    kept += 1
                    guard kept <= JSONCheck.maximumKeyLength else {
                        throw .overLimit(
                            limit: "a key longer than \(JSONCheck.maximumKeyLength) bytes",
                            path: path.joined(separator: "."))
                    }
                }
                guard byte == UInt8(ascii: "\\") else {
                    if keeping { raw.append(byte) }
                    position += 1
                    continue
                }
                flush()
                position += 1
                guard let escape = current else { throw syntax("a string without its closing quote") }
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(Unicode.Scalar(escape))
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "u"):
                    var value = try hex()
                    // A surrogate pair (RFC 8259 §7) is one scalar.
                    if (0xD800..<0xDC00).contains(value), current == UInt8(ascii: "\\"), available(2),
                        window[position - windowStart + 1] == UInt8(ascii: "u")
                    {
                        position += 2
                        let low = try hex()
                        value =
                            (0xDC00..<0xE000).contains(low)
                            ? 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00) : 0xFFFD
                    }
                    scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
                default:
                    position -= 2
                    throw syntax("an unknown escape '\\\(Character(Unicode.Scalar(escape)))' in a string")
                }
                if !keeping { scalars.removeAll() }
            }
            flush()
            position += 1
            return String(scalars)
        }

        private mutating func hex() throws(Problem) -> UInt32 {
            guard available(4), case let index = position - windowStart,
                let value = UInt32(String(decoding: window[index..<index + 4], as: UTF8.self), radix: 16)
            else { throw syntax("expected four hex digits after \\u") }
            position += 4
            return value
        }

        mutating func number() throws(Problem) {
            func digits() -> Int {
                let start = position
                while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
                return position - start
            }
            if current == UInt8(ascii: "-") { position += 1 }
            if current == UInt8(ascii: "0") {
                position += 1
                if let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                    throw syntax("a number with a leading zero")
                }
            } else if digits() == 0 {
                throw syntax("expected a digit, found \(found)")
            }
            if current == UInt8(ascii: ".") {
                position += 1
                guard digits() > 0 else { throw syntax("expected a digit after '.', found \(found)") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                guard digits() > 0 else { throw syntax("expected a digit in the exponent, found \(found)") }
            }
        }

        mutating func literal(_ word: String) throws(Problem) {
            for expected in word.utf8 {
                guard current == expected else { throw syntax("expected '\(word)', found \(found)") }
                position += 1
            }
        }
    }
}
