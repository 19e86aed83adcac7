import CampaignMockSystem

/// A complete, parsed HTTP/1.x request. A value: handlers get it and cannot reach the socket.
///
/// Its fields live in one shared box, copied on the first change (copy-on-write): a request is passed
/// along the router, the middleware and the pipeline's closures, and copying nine fields (each string
/// and array retained and released) cost about 300 instructions per copy, several times per request.
package struct HTTPRequest: Sendable {
    private final class Storage: @unchecked Sendable {
        // Mutated only through a uniquely referenced box (see `unique()`), so sharing it is safe.
        var method: HTTPMethod
        let target: String
        let path: String
        var version: (major: Int, minor: Int)
        var headers: HTTPHeaders
        var body: [UInt8]
        var remoteAddress: SocketAddress?
        var receivedAt: UInt64
        var isSecure: Bool
        var spooledBody: SpooledBody?
        var lease: (any Sendable & AnyObject)?

        init(
            method: HTTPMethod, target: String, path: String, version: (major: Int, minor: Int),
            headers: HTTPHeaders, body: [UInt8], remoteAddress: SocketAddress?, receivedAt: UInt64, isSecure: Bool
        ) {
            self.method = method
            self.target = target
            self.path = path
            self.version = version
            self.headers = headers
            self.body = body
            self.remoteAddress = remoteAddress
            self.receivedAt = receivedAt
            self.isSecure = isSecure
        }

        func copy() -> Storage {
            let copy = Storage(
                method: method, target: target, path: path, version: version, headers: headers, body: body,
                remoteAddress: remoteAddress, receivedAt: receivedAt, isSecure: isSecure)
            copy.spooledBody = spooledBody
            copy.lease = lease
            return copy
        }
    }

    private var storage: Storage

    package init(
        method: HTTPMethod,
        target: String,
        version: (major: Int, minor: Int) = (1, 1),
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        remoteAddress: SocketAddress? = nil,
        receivedAt: UInt64 = Clock.monotonicNanoseconds()
    ) {
        storage = Storage(
            method: method, target: target, path: Self.path(of: target), version: version, headers: headers,
            body: body, remoteAddress: remoteAddress, receivedAt: receivedAt, isSecure: false)
    }

    /// The box, copied first when another request value shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    package var method: HTTPMethod {
        get { storage.method }
        set { unique().method = newValue }
    }

    /// The request-target as sent, e.g. `/r/?id=h3039,d,1` (an absolute-form target keeps its path only).
    package var target: String { storage.target }

    /// The path part of the target, not percent-decoded. Cut out once: the router, the groups'
    /// middleware and the handlers each ask for it.
    package var path: String { storage.path }

    /// `1.1` or `1.0`, as (major, minor).
    package var version: (major: Int, minor: Int) {
        get { storage.version }
        set { unique().version = newValue }
    }

    package var headers: HTTPHeaders {
        get { storage.headers }
        set { unique().headers = newValue }
    }

    package var body: [UInt8] {
        get { storage.body }
        set { unique().body = newValue }
    }

    /// The body, when it went to a temporary file (``BodySpooling``) instead of ``body``, which is then empty.
    package var spooledBody: SpooledBody? {
        get { storage.spooledBody }
        set { unique().spooledBody = newValue }
    }

    /// What the route's head check (``RouteGroup/add(_:_:admit:_:)``) took for this request, such as the one
    /// slot of an import; held as long as the request is, and given back when the last copy goes.
    package var lease: (any Sendable & AnyObject)? {
        get { storage.lease }
        set { unique().lease = newValue }
    }

    /// Who sent it; nil for requests built in tests.
    package var remoteAddress: SocketAddress? {
        get { storage.remoteAddress }
        set { unique().remoteAddress = newValue }
    }

    /// Monotonic time the request was complete, for durations.
    package var receivedAt: UInt64 {
        get { storage.receivedAt }
        set { unique().receivedAt = newValue }
    }

    /// Whether it came over TLS (an HTTPS listener).
    package var isSecure: Bool {
        get { storage.isSecure }
        set { unique().isSecure = newValue }
    }

    private static func path(of target: String) -> String {
        // Searched on the contiguous bytes: a search by Character cost a sixth of a health check, and
        // the generic search of the UTF-8 view still 400 instructions.
        var target = target
        return target.withUTF8 { bytes in
            bytes.firstIndex(of: UInt8(ascii: "?")).map {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[..<$0]), as: UTF8.self)
            }
        } ?? target
    }

    /// The query part after `?`, not decoded; nil when there is none.
    package var query: String? {
        var target = target
        return target.withUTF8 { bytes in
            bytes.firstIndex(of: UInt8(ascii: "?")).map {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[($0 + 1)...]), as: UTF8.self)
            }
        }
    }

    /// Whether the client asked to keep the connection open after this exchange (RFC 9112 §9.3).
    package var wantsKeepAlive: Bool {
        if headers.hasToken("close", in: .connection) { return false }
        if version.major == 1 && version.minor == 0 { return headers.hasToken("keep-alive", in: .connection) }
        return true
    }

    /// The body as UTF-8 text (invalid sequences replaced).
    package var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Whether a browser sent this request from a page, of any site (`Origin`, or `Sec-Fetch-Site` other than
    /// `none`): never the SDKs, curl or a backend. A page on a name that resolves to this machine (DNS
    /// rebinding) is same-origin to the mock, so only its `Host` tells it apart (``HostAllowList``).
    package var isFromPage: Bool {
        if headers[HTTPHeaderName(rawValue: "Origin")] != nil { return true }
        guard let site = headers[HTTPHeaderName(rawValue: "Sec-Fetch-Site")] else { return false }
        return site.lowercased() != "none"
    }

    /// The other site a browser sent this request from, or nil when it comes from the server's own origin
    /// (`Origin` is its `scheme://Host`), from the user typing or opening it (`Sec-Fetch-Site: none`), or
    /// from a client that is not a browser (neither header: curl, the SDKs, test code). Read as browsers
    /// send them: `Sec-Fetch-Site` other than `same-origin` and `none`, or an `Origin` of another host.
    package var crossSiteOrigin: String? {
        let origin = headers[HTTPHeaderName(rawValue: "Origin")]
        if let site = headers[HTTPHeaderName(rawValue: "Sec-Fetch-Site")]?.lowercased(),
            site != "same-origin" && site != "none"
        {
            return origin ?? "another site (Sec-Fetch-Site: \(site))"
        }
        guard let origin else { return nil }
        // RFC 6454 §7: `scheme "://" host [ ":" port ]`, or `null` for an opaque origin.
        let parts = origin.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].hasSuffix(":"), parts[1].isEmpty else { return origin }
        return parts[2].lowercased() == headers[.host]?.lowercased() ? nil : origin
    }
}
