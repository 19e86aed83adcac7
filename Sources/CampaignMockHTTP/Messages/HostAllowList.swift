/// The `Host` names the admin API, the console and, for a browser's requests, the SOAP router answer to: the defence against DNS rebinding, where a
/// web page on `evil.example` makes its own name resolve to 127.0.0.1 and then reads the mock as if it
/// were same-origin. Such a request still says `Host: evil.example`, so the name is what is checked.
///
/// Allowed: any IP literal (a rebinding page always has a DNS name), `localhost` and names under
/// `.localhost`, and the names given (`--allowed-host`, `--host`, `--tls-san`, the machine's own names
/// when the server listens on every interface). A given name that starts with a dot allows every name
/// under it (`.corp.example`). A request with no `Host` is not from a browser and passes.
package struct HostAllowList: Sendable, Equatable {
    private let exact: Set<String>
    private let suffixes: [String]

    package init(names: [String]) {
        var exact: Set<String> = ["localhost"]
        var suffixes = [".localhost"]
        for name in names.map(Self.normalized) where !name.isEmpty {
            if name.hasPrefix(".") { suffixes.append(name) } else { exact.insert(name) }
        }
        self.exact = exact
        self.suffixes = suffixes
    }

    /// Whether a request with this `Host` header may use the admin API.
    package func allows(_ header: String?) -> Bool {
        guard let header else { return true }
        let name = Self.hostname(of: header)
        if exact.contains(name) || (try? SocketAddress(parsing: name, port: 0)) != nil { return true }
        return suffixes.contains { name.hasSuffix($0) }
    }

    /// The name of a `Host` header (RFC 9110 §7.2: `host [":" port]`, an IPv6 literal in brackets), in
    /// lowercase without a trailing dot.
    /// Why `refuser` does not answer a request with this `Host` header, or nil when the name is allowed:
    /// `refuser` is the subject of the sentence ("the admin API and console do not answer to").
    package func refusal(host header: String?, _ refuser: String) -> String? {
        guard !allows(header) else { return nil }
        let name = Self.hostname(of: header ?? "")
        return "\(refuser) Host '\(name)' (a guard against DNS rebinding); if you reach campaign-mock by that "
            + "name, start it with --allowed-host \(name)"
    }

    package static func hostname(of header: String) -> String {
        let value = header.trimmingASCIISpaces()
        if value.hasPrefix("["), let close = value.firstIndex(of: "]") {
            return normalized(String(value[value.index(after: value.startIndex)..<close]))
        }
        if let colon = value.lastIndex(of: ":") { return normalized(String(value[..<colon])) }
        return normalized(value)
    }

    private static func normalized(_ name: String) -> String {
        var name = name.trimmingASCIISpaces().lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.count > 1 && name.hasSuffix(".") { name.removeLast() }
        return name
    }
}
