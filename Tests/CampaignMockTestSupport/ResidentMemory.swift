import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The test process's resident memory in MiB, for tests that check a flood leaves no growth behind; nil
/// where it cannot be read.
public enum ResidentMemory {
    public static func megabytes() -> Int? {
        #if canImport(Darwin)
            var info = mach_task_basic_info()
            var count = mach_msg_type_number_t(
                MemoryLayout<mach_task_basic_info>.size / MemoryLayout<natural_t>.size)
            let result = withUnsafeMutablePointer(to: &info) { pointer in
                pointer.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
                    task_info(mach_task_self_, task_flavor_t(MACH_TASK_BASIC_INFO), $0, &count)
                }
            }
            guard result == KERN_SUCCESS else { return nil }
            return Int(info.resident_size) / (1 << 20)
        #else
            guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
                let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
            else { return nil }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / (1 << 20)
        #endif
    }
}
