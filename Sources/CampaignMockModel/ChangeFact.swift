/// What a stored change was about, by the name the filters of `GET /_mock/wait` and `GET /_mock/stream`
/// give it (`app`, `token`, `deliveryId`, `endpoint`, `param.email`, …): the one list the waiters and the
/// event stream compare changes by.
package enum ChangeFact: Hashable, Sendable {
    case app, token, platform, userKey, endpoint, status, deliveryId, messageValue, messageUuid
    /// `param.<name>` of a registration's additional params.
    case param(String)

    /// The facts a stream filters on, each a query parameter of `/_mock/stream` by its ``name``.
    package static let streamFilters: [ChangeFact] = [
        .app, .token, .platform, .userKey, .endpoint, .status, .deliveryId,
    ]

    /// The query parameter that names it.
    package var name: String {
        switch self {
        case .app: "app"
        case .token: "token"
        case .platform: "platform"
        case .userKey: "userKey"
        case .endpoint: "endpoint"
        case .status: "status"
        case .deliveryId: "deliveryId"
        case .messageValue: "messageValue"
        case .messageUuid: "messageUuid"
        case .param(let name): "param." + name
        }
    }
}
