#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Unbuffered output: the banner must reach a pipe (a test, a CI log) the moment the server is ready.
enum Output {
    static func standardOutput(_ text: String) {
        write(1, text.hasSuffix("\n") ? text : text + "\n")
    }

    static func standardError(_ text: String) {
        write(2, text.hasSuffix("\n") ? text : text + "\n")
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
