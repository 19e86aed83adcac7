#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the user runs this binary, for the hints the CLI prints: `campaign-mock` when that name on PATH is
/// this very file (after `make install`), else this file's path (`.build/…/debug/campaign-mock` right
/// after `make run`), relative to the working directory when it is inside it.
enum Invocation {
    static var command: String {
        guard let me = realPath(CommandLine.arguments[0].contains("/") ? CommandLine.arguments[0] : nil) else {
            return "campaign-mock"
        }
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        for directory in path.split(separator: ":") where realPath("\(directory)/campaign-mock") == me {
            return "campaign-mock"
        }
        if let here = realPath("."), me.hasPrefix(here + "/") { return String(me.dropFirst(here.count + 1)) }
        return me
    }

    /// The absolute path with every symbolic link resolved, or nil when there is no such file.
    private static func realPath(_ path: String?) -> String? {
        guard let path, let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
