#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many CPUs the process may use.
enum ProcessorInfo {
    static var activeProcessorCount: Int {
        Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
