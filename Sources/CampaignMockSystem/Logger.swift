import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Severity of a log line.
package enum LogLevel: String, Sendable, CaseIterable, Comparable {
    case trace, debug, info, warning, error

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}

/// How log lines are written.
package enum LogFormat: String, Sendable, CaseIterable {
    /// `2026-11-22T17:10:00.123Z info GET /r/ 200 0.4ms` for people.
    case text
    /// One JSON object per line for machines.
    case json
}

/// Writes one line per event to standard error (or another descriptor), whole lines only. In the text
/// format, control characters in messages and fields are escaped (``PrintableText``).
package final class Logger: Sendable {
    package let level: LogLevel
    package let format: LogFormat
    private let descriptor: Int32
    private let lock = Mutex(())

    package init(level: LogLevel = .info, format: LogFormat = .text, descriptor: Int32 = 2) {
        self.level = level
        self.format = format
        self.descriptor = descriptor
    }

    /// A logger that writes nothing.
    package static let silent = Logger(level: .error, descriptor: -1)

    package func isEnabled(_ level: LogLevel) -> Bool { descriptor >= 0 && level >= self.level }

    /// Writes `message` with ordered `fields` when `level` is enabled.
    package func log(
        _ level: LogLevel, _ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]
    ) {
        guard isEnabled(level) else { return }
        let time = RFC3339.string(microsecondsSince1970: Clock.wallClockMicroseconds())
        var line: String
        switch format {
        case .text:
            // Messages and fields carry what clients sent: escaped, so they cannot forge a line or drive
            // the terminal. (JSON quoting escapes them already.)
            line = "\(time) \(level.rawValue) \(PrintableText.escaped(message()))"
            for (key, value) in fields { line += " \(key)=\(PrintableText.escaped(value))" }
        case .json:
            line =
                "{\"time\":\(JSONText.quoted(time)),\"level\":\"\(level.rawValue)\",\"message\":\(JSONText.quoted(message()))"
            for (key, value) in fields { line += ",\(JSONText.quoted(key)):\(JSONText.quoted(value))" }
            line += "}"
        }
        line += "\n"
        var bytes = Array(line.utf8)
        lock.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes {
                    write(descriptor, $0.baseAddress! + offset, $0.count - offset)
                }
                if written <= 0 { break }
                offset += written
            }
        }
        bytes.removeAll()
    }

    package func info(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.info, message(), fields)
    }

    package func warning(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.warning, message(), fields)
    }

    package func error(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]) {
        log(.error, message(), fields)
    }
}

/// Minimal JSON string quoting for code that does not link Foundation.
package enum JSONText {
    /// `value` as a JSON string literal, quotes included (RFC 8259 §7).
    package static func quoted(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            // Controls past C0 too (DEL, C1): valid JSON either way, and safe on a terminal.
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
