/// What `GET /_mock/wait` answers: the items found (all of them, or what was seen when it timed out).
public struct WaitAnswer<Item: Codable & Sendable>: Codable, Sendable {
    /// What was waited for (`for=`): `registration`, `receive`, `open`, `request` or `push`.
    public var kind: String
    public var wanted: Int
    public var count: Int
    public var items: [Item]
    /// Why the wait ended without enough items.
    public var error: String?

    public init(kind: String, wanted: Int, count: Int, items: [Item], error: String? = nil) {
        self.kind = kind
        self.wanted = wanted
        self.count = count
        self.items = items
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case kind = "for"
        case wanted, count, items, error
    }
}
