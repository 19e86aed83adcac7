import Foundation

/// Runs `body(0..<count)` on `count` threads at once (not a pool: every body really runs concurrently,
/// as that many clients would) and returns when all have finished.
public func runConcurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 256 * 1024
        thread.start()
    }
    group.wait()
}

/// A counter many threads can bump.
public final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    public init() {}

    public func increment() { lock.withLock { count += 1 } }
    public var value: Int { lock.withLock { count } }
}

/// A set many threads can add to.
public final class LockedSet: @unchecked Sendable {
    private let lock = NSLock()
    private var items: Set<String> = []

    public init() {}

    public func insert(_ item: String) { _ = lock.withLock { items.insert(item) } }
    public var values: Set<String> { lock.withLock { items } }
}
