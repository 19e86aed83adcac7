/// A dictionary that keeps at most `limit` entries: once full, inserting a new key evicts the oldest
/// inserted one. Removed keys leave their place in the order behind; the order is compacted when it holds
/// twice as many places as entries, and the places of evicted keys are dropped once they are half of it, so
/// both stay within a small multiple of `limit`.
struct BoundedTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    let limit: Int
    private(set) var entries: [Key: Value] = [:]
    private var order: [Key] = []
    private var head = 0

    /// - Parameter reserved: room made at once for this many entries: no rehashing while the table fills up
    ///   to them.
    init(limit: Int, reserved: Int = 0) {
        precondition(limit > 0, "a bounded table keeps at least one entry")
        self.limit = limit
        entries.reserveCapacity(reserved)
    }

    var count: Int { entries.count }

    /// The value of `key`; it is changed through ``update(_:_:)`` (in place) or ``insert(_:_:)`` (which keeps the
    /// order of insertion).
    subscript(key: Key) -> Value? { entries[key] }

    /// Changes the value of `key` in place (one lookup, no copy of the value); nil when there is none.
    mutating func update<Result>(_ key: Key, _ change: (inout Value) -> Result) -> Result? {
        guard let index = entries.index(forKey: key) else { return nil }
        return change(&entries.values[index])
    }

    /// Sets `value` for `key`; a new key may evict the oldest entry, which is returned.
    mutating func insert(_ key: Key, _ value: Value) -> (key: Key, value: Value)? {
        if entries.updateValue(value, forKey: key) != nil { return nil }
        order.append(key)
        var evicted: (key: Key, value: Value)?
        while entries.count > limit, head < order.count {
            let oldest = order[head]
            head += 1
            // A key removed (or removed and inserted again later) may still have an older place here.
            if oldest != key, let value = entries.removeValue(forKey: oldest) { evicted = (oldest, value) }
        }
        if order.count - head > 2 * max(entries.count, 16) {
            compact()
        } else if head > order.count / 2 {
            // Only the evicted places go: one move of the rest, no key hashed again (a full table under a
            // load of new keys comes here every `limit` insertions).
            order.removeFirst(head)
            head = 0
        }
        return evicted
    }

    @discardableResult
    mutating func remove(_ key: Key) -> Value? { entries.removeValue(forKey: key) }

    mutating func removeAll() {
        entries.removeAll()
        order.removeAll()
        head = 0
    }

    /// The order without removed keys and repeated places (the newest place of a key counts).
    private mutating func compact() {
        var seen = Set<Key>()
        var kept: [Key] = []
        kept.reserveCapacity(entries.count)
        for key in order[head...].reversed() where entries[key] != nil && seen.insert(key).inserted {
            kept.append(key)
        }
        order = kept.reversed()
        head = 0
    }
}
