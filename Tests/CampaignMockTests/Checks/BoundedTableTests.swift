import Testing

@testable import CampaignMockChecks

/// The bounded table the checks remember devices, messages and findings in: the oldest inserted key goes
/// first, whatever the table went through before.
@Suite struct BoundedTableTests {
    /// A load of new keys, many times the bound: the table keeps exactly the newest `limit`, each evicted in
    /// the order it came (the evicted places are dropped again and again on the way).
    @Test func aLoadOfNewKeysKeepsTheNewestAndEvictsInOrder() {
        var table = BoundedTable<Int, String>(limit: 100, reserved: 100)
        var evicted: [Int] = []
        for key in 0..<10_000 {
            if let gone = table.insert(key, "v\(key)") { evicted.append(gone.key) }
        }
        #expect(table.count == 100)
        #expect(Set(table.entries.keys) == Set(9_900..<10_000))
        #expect(evicted == Array(0..<9_900))
        #expect(table[9_999] == "v9999" && table[9_899] == nil)
    }

    /// A key set again keeps its place; one changed in place keeps it too.
    @Test func aKeySetAgainKeepsItsPlace() {
        var table = BoundedTable<String, Int>(limit: 2)
        #expect(table.insert("a", 1) == nil)
        #expect(table.insert("b", 2) == nil)
        #expect(table.insert("a", 3) == nil)
        let changed = table.update("b") { value -> Int in
            value += 10
            return value
        }
        #expect(changed == 12)
        #expect(table.insert("c", 4)?.key == "a")
        #expect(table.entries == ["b": 12, "c": 4])
    }

    /// Keys removed leave places behind; once they outnumber the entries the order is compacted, and the
    /// table still evicts the oldest of what it holds.
    @Test func removedKeysDoNotCountAndTheOldestStillGoesFirst() {
        var table = BoundedTable<Int, Int>(limit: 50)
        for key in 0..<50 { _ = table.insert(key, key) }
        for key in 0..<45 { table.remove(key) }
        #expect(table.count == 5)
        var evicted: [Int] = []
        for key in 100..<1_000 {
            if let gone = table.insert(key, key) { evicted.append(gone.key) }
        }
        #expect(table.count == 50)
        #expect(Set(table.entries.keys) == Set(950..<1_000))
        #expect(evicted == Array(45..<50) + Array(100..<950))
    }
}
