/// What `GET /_mock/wait` answers: the items found (all of them, or what was seen when it timed out).
public struct WaitAnswer<Item: Codable & Sendable>: Codable, Sendable {
    /// What was waited for (`for=`): `registration`, `receive`, `open`, `request` or `push`.
    public var kind: String
    public var wanted: Int
    public var count: Int
    public var items: [Item]
    /// Why the wait ended without enough items.
    public var error: String?
    /// On a timeout of a wait that counted from its call (no `since`): the matching items that had
    /// arrived before it, which it did not count.
    public var earlier: Earlier?

    /// Matching items that arrived before a wait began, and how to count them.
    public struct Earlier: Codable, Sendable {
        public var count: Int
        /// The newest of them.
        public var newest: Item
        /// The query parameter that counts them: `since=0` (everything kept) or `since=<time>`.
        public var include: String

        public init(count: Int, newest: Item, include: String) {
            self.count = count
            self.newest = newest
            self.include = include
        }
    }

    public init(kind: String, wanted: Int, count: Int, items: [Item], error: String? = nil, earlier: Earlier? = nil) {
        self.kind = kind
        self.wanted = wanted
        self.count = count
        self.items = items
        self.error = error
        self.earlier = earlier
    }

    enum CodingKeys: String, CodingKey {
        case kind = "for"
        case wanted, count, items, error, earlier
    }
}
