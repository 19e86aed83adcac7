// campaign-mock-fuzz: the libFuzzer targets of campaign-mock, and a runner for their inputs.
//
// Built by `make fuzz` with -sanitize=fuzzer,address and -DFUZZING, it is a libFuzzer binary whose
// target is chosen by CAMPAIGN_MOCK_FUZZ_TARGET (http-request, form, additional-params, tracking-id,
// soap-envelope, state-document, spooled-request, payload-check, config-file, http2-response, redo-log,
// http-response, journal-file). Built
// normally, `campaign-mock-fuzz TARGET FILE...` runs files through the same target, which is how a crash
// file is replayed while fixing it.

import CampaignMock

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a line to standard error.
func complain(_ text: String) {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

#if FUZZING
    private let target: UntrustedInput = {
        let name = getenv("CAMPAIGN_MOCK_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let target = UntrustedInput(rawValue: name) else {
            let names = UntrustedInput.allCases.map(\.rawValue).joined(separator: ", ")
            complain("set CAMPAIGN_MOCK_FUZZ_TARGET to one of: \(names)")
            exit(2)
        }
        return target
    }()

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        target.read(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    /// SwiftPM links an executable's entry point under this name; hand over to libFuzzer's driver.
    @_cdecl("CampaignMockFuzz_main")
    public func fuzzerMain(
        _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) -> Int32 {
        var count = argc
        var vector = argv
        return runFuzzerDriver(&count, &vector) { data, size in fuzz(data, size) }
    }
#else
    /// `campaign-mock-fuzz TARGET FILE...`: runs the files through a target.
    @main
    struct FuzzInputRunner {
        static func main() {
            let arguments = CommandLine.arguments
            guard arguments.count >= 2, let target = UntrustedInput(rawValue: arguments[1]) else {
                let names = UntrustedInput.allCases.map(\.rawValue).joined(separator: "|")
                complain("usage: campaign-mock-fuzz \(names) FILE...")
                exit(2)
            }
            for path in arguments.dropFirst(2) {
                guard let file = fopen(path, "rb") else {
                    complain("cannot read \(path)")
                    exit(2)
                }
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65536)
                while case let count = fread(&chunk, 1, chunk.count, file), count > 0 { bytes += chunk[0..<count] }
                fclose(file)
                target.read(bytes)
            }
            print("read \(arguments.count - 2) input(s) through \(target.rawValue)")
        }
    }
#endif
