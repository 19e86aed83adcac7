import CampaignMockSupport
import CampaignMockSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything the CLI prints, unbuffered (the banner must reach a pipe, a test or a CI log, the moment the
/// server is ready). What it prints is mostly a server's: send lines, warnings, refusal reasons, findings,
/// JSON answers, and a server shows what devices chose (a token, a user key). So text is escaped by
/// default: a ``TerminalText`` keeps the CLI's own words as written and shows every control character of
/// what is interpolated into them as an escape (``PrintableText``), line breaks included, so a
/// device-chosen text can neither write to the clipboard (`ESC]52`), retitle the window, clear the screen
/// nor forge a line of a CI log. JSON goes through ``json(_:)``.
enum Output {
    static func standardOutput(_ text: TerminalText) {
        write(1, text.text.hasSuffix("\n") ? text.text : text.text + "\n")
    }

    static func standardError(_ text: TerminalText) {
        write(2, text.text.hasSuffix("\n") ? text.text : text.text + "\n")
    }

    /// A server's JSON (`--json`, `--format json`) on standard output: the same JSON with DEL and the C1
    /// controls as `\u` escapes (C0 ones cannot be in a JSON string; any outside one, which would not be
    /// JSON, is escaped too, all but the line breaks and tabs that lay JSON out).
    static func json(_ json: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(json.utf8.count + 1)
        for byte in JSONText.escapingControls(Array(json.utf8)) {
            if byte < 0x20 && byte != 0x0A && byte != 0x0D && byte != 0x09 {
                bytes += Array(("\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)).utf8)
            } else {
                bytes.append(byte)
            }
        }
        if bytes.last != 0x0A { bytes.append(0x0A) }
        standardOutputBytes(bytes)
    }

    /// Writes bytes to standard output as they are (a DER certificate, say).
    static func standardOutputBytes(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Output.systemWrite(1, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    static func exitProcess(_ code: Int32) -> Never {
        exit(code)
    }

    private static func write(_ descriptor: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Output.systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    #if canImport(Glibc)
        private static let systemWrite = Glibc.write
    #elseif canImport(Darwin)
        private static let systemWrite = Darwin.write
    #endif
}

/// A line (or lines) for a terminal or a CI log: the literal parts as the CLI wrote them (its line breaks,
/// its colors), every interpolated value escaped (``PrintableText/escaped(_:)``). `\(trusted: text)` puts
/// in text the CLI made itself whole (a list of its commands, the banner); another `TerminalText` goes in
/// as it is, being safe already. `TerminalText(text)` escapes a whole text from elsewhere.
struct TerminalText: ExpressibleByStringInterpolation, Sendable, CustomStringConvertible {
    fileprivate(set) var text: String

    init(stringLiteral value: String) {
        text = value
    }

    /// Text from elsewhere, every control character escaped.
    init(_ untrusted: String) {
        text = PrintableText.escaped(untrusted)
    }

    init(stringInterpolation: Interpolation) {
        text = stringInterpolation.text
    }

    var description: String { text }

    static func + (lhs: TerminalText, rhs: TerminalText) -> TerminalText {
        var joined = lhs
        joined.text += rhs.text
        return joined
    }

    struct Interpolation: StringInterpolationProtocol {
        fileprivate var text = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        mutating func appendInterpolation(_ value: some Any) {
            text += PrintableText.escaped(String(describing: value))
        }

        mutating func appendInterpolation(_ value: TerminalText) {
            text += value.text
        }

        mutating func appendInterpolation(trusted value: String) {
            text += value
        }
    }
}
