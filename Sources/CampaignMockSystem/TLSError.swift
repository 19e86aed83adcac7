import COpenSSL

/// A TLS failure: what was being done and OpenSSL's own words for it.
package struct TLSError: Error, Equatable, CustomStringConvertible {
    package let operation: String
    package let reason: String

    package init(_ operation: String, reason: String? = nil) {
        self.operation = operation
        self.reason = reason ?? TLSError.drainErrorQueue()
    }

    package var description: String { reason.isEmpty ? "\(operation) failed" : "\(operation) failed: \(reason)" }

    /// Empties OpenSSL's thread-local error queue and returns its entries as one line.
    package static func drainErrorQueue() -> String {
        var lines: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            lines.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return lines.joined(separator: "; ")
    }
}
