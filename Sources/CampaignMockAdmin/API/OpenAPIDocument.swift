/// The OpenAPI 3.1 description of the admin API (`openapi.json` beside this file, embedded in the binary
/// at build time), served at `GET /_mock/openapi.json`.
///
/// Kept true by tests: every documented path answers, and every `/_mock/` route is documented.
/// CI also runs schemathesis against a live server with it.
package enum OpenAPIDocument {
    static let bytes: [UInt8] = PackageResources.openapi_json
}
