package import CampaignMockHTTP
import CampaignMockPush
import CampaignMockRuntime
import CampaignMockSupport

/// The console (`/_mock/ui/`): its web files, built into the binary, and what its overview reads.
extension AdminAPI {
    /// The console's files by name, with their content types.
    private static let files: [String: (type: String, bytes: [UInt8])] = [
        "": ("text/html; charset=utf-8", PackageResources.index_html),
        "index.html": ("text/html; charset=utf-8", PackageResources.index_html),
        "console.css": ("text/css; charset=utf-8", PackageResources.console_css),
        "console.js": ("text/javascript; charset=utf-8", PackageResources.console_js),
        // docs/checks.md (a link in this folder), whose sections the findings' `doc` names: the console shows
        // them with no request leaving the server, and the text reads as it is in a tab of its own.
        "checks.md": ("text/plain; charset=utf-8", PackageResources.checks_md),
    ]

    func registerConsole(on group: inout RouteGroup) {
        // `/_mock/ui` and `/_mock/ui/` are one route (the router ignores a trailing slash); the page links
        // its files by absolute path, so both work.
        group.add(.get, "/_mock/ui", respond: { _ in try Self.file("") })
        group.add(
            .get, "/_mock/ui/{file}", respond: { _, parameters in try Self.file(parameters["file"] ?? "") })
        group.add(.get, "/_mock/info", respond: info)
        group.add(.get, "/_mock/ca", respond: certificateAuthority)
    }

    /// `GET /`: to the console.
    package func root(_ request: HTTPRequest, _ parameters: RouteParameters, _ reply: ReplyChannel) {
        reply.send(Self.redirect(to: "/_mock/ui/"))
    }

    private static func redirect(to location: String) -> HTTPResponse {
        var response = HTTPResponse.text(.found, "See \(location)")
        response.headers.set(HTTPHeaderName(rawValue: "Location"), location)
        return response
    }

    private static func file(_ name: String) throws -> HTTPResponse {
        guard let file = files[name] else { throw AdminError(.notFound, "the console has no file '\(name)'") }
        var response = HTTPResponse.content(.ok, type: file.type, file.bytes)
        // Nothing the console loads may come from elsewhere, and no other site may frame it (clickjacking:
        // a page that shows the console under its own buttons).
        response.headers.set(
            HTTPHeaderName(rawValue: "Content-Security-Policy"),
            "default-src 'self'; img-src 'self' data: blob: https: http:; connect-src 'self'; object-src 'none'; "
                + "base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
        )
        response.headers.set(HTTPHeaderName(rawValue: "X-Frame-Options"), "DENY")
        response.headers.set(HTTPHeaderName(rawValue: "X-Content-Type-Options"), "nosniff")
        response.headers.set(HTTPHeaderName(rawValue: "Referrer-Policy"), "no-referrer")
        response.headers.set(HTTPHeaderName(rawValue: "Cache-Control"), "no-cache")
        return response
    }

    private func info(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let description = server.description else { throw AdminError(.serviceUnavailable, "not listening yet") }
        return AdminResponse.json(
            .ok, Overview(server: description, sending: sender.status, tools: devices.tools.status))
    }

    /// `GET /_mock/info`'s answer: the server's own description, and push's view of sending and of the
    /// device tools beside its fields.
    private struct Overview: Encodable {
        var server: ConsoleInfo
        var sending: SendingStatus
        var tools: ToolsStatus

        private enum CodingKeys: String, CodingKey {
            case sending, tools
        }

        func encode(to encoder: any Encoder) throws {
            try server.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sending, forKey: .sending)
            try container.encode(tools, forKey: .tools)
        }
    }

    /// `GET /_mock/ca?format=pem|der|mobileconfig`: the local CA, with `--tls auto`.
    private func certificateAuthority(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try AdminResponse.query(request)
        try AdminResponse.allowOnly(query, ["format"])
        let name = query["format"] ?? "pem"
        guard let format = CertificateExport.Format(rawValue: name), format != .androidNSC else {
            throw AdminError(.badRequest, "format must be pem, der or mobileconfig")
        }
        guard let bytes = server.certificate(format) else {
            throw AdminError(.notFound, "no local CA: the server runs without --tls auto")
        }
        let types: [CertificateExport.Format: String] = [
            .pem: "application/x-pem-file", .der: "application/pkix-cert",
            .mobileconfig: "application/x-apple-aspen-config",
        ]
        return .content(.ok, type: types[format] ?? "application/octet-stream", bytes)
    }
}
