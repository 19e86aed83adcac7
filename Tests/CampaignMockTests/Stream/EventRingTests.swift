import CampaignMockHTTP
import CampaignMockModel
import CampaignMockTestSupport
import Foundation
import Synchronization
import Testing

@testable import CampaignMockRuntime
@testable import CampaignMockStorage

/// What a stream sent, collected straight from its ``ResponseStream`` (no connection in between).
private final class Collected: Sendable {
    private let text = Mutex("")

    init(_ stream: ResponseStream) {
        stream.attach { [self] event in
            switch event {
            case .chunk(let bytes), .finish(let bytes): text.withLock { $0 += String(decoding: bytes, as: UTF8.self) }
            case .abort: break
            }
        }
    }

    /// The events' `id` and `event` lines, as "id type".
    var events: [String] {
        text.withLock { text in
            text.components(separatedBy: "\n\n").compactMap { block in
                let lines = block.split(separator: "\n")
                guard let id = lines.first(where: { $0.hasPrefix("id: ") }),
                    let type = lines.first(where: { $0.hasPrefix("event: ") })
                else { return nil }
                return "\(id.dropFirst(4)) \(type.dropFirst(7))"
            }
        }
    }

    var isEmpty: Bool { text.withLock { $0.isEmpty } }
}

@Suite("event ring", .timeLimit(.minutes(3)))
struct EventRingTests {
    /// The ring keeps `ringBytes` of its events' data at most (32 MiB by default) as well as `ringCapacity`
    /// events, the oldest going first: 10,000 events of large registrations would otherwise be gigabytes.
    @Test func theRingKeepsItsBytesAsWellAsItsCount() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.path + "/db.sqlite3")
        defer { store.close() }
        let hub = EventHub(store: store, ringCapacity: 10_000, ringBytes: 4096)
        let live = Collected(hub.subscribe(filter: EventHub.Filter(), after: nil))
        for _ in 0..<2000 where live.isEmpty { usleep(1000) }
        let pad = String(repeating: "x", count: 1000)
        for index in 1...40 { hub.publish(.app, ["n": "\(index)", "pad": pad], facts: [:]) }
        for _ in 0..<2000 where live.events.count < 40 { usleep(1000) }

        let resumed = Collected(hub.subscribe(filter: EventHub.Filter(), after: 0))
        for _ in 0..<2000 where resumed.events.last != "40 app" { usleep(1000) }
        // Four events of 1,019 bytes fit in 4 KiB; the older ones went.
        let kept = resumed.events.filter { $0.hasSuffix(" app") }
        #expect(kept == (37...40).map { "\($0) app" }, "\(resumed.events)")
    }

    /// Once the ring has wrapped around, a resume gets exactly the events after its cursor, oldest first,
    /// and a resume from before the oldest kept event starts with a gap that says where to resume from.
    @Test func aWrappedRingResumesExactlyAndAnOlderCursorGetsAGap() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.path + "/db.sqlite3")
        defer { store.close() }
        let hub = EventHub(store: store, ringCapacity: 5)
        let live = Collected(hub.subscribe(filter: EventHub.Filter(), after: nil))
        // The hub is active once the opening comment is out; publishing before that is for nobody.
        for _ in 0..<2000 where live.isEmpty { usleep(1000) }
        for index in 1...12 { hub.publish(.app, ["n": index], facts: [.app: "app\(index % 2)"]) }

        let resumed = Collected(hub.subscribe(filter: EventHub.Filter(), after: 9))
        let fromBefore = Collected(hub.subscribe(filter: EventHub.Filter(), after: 3))
        let filtered = Collected(hub.subscribe(filter: EventHub.Filter(facts: [.app: "app0"]), after: 7))
        for _ in 0..<2000 where live.events.count < 12 || filtered.events.count < 3 { usleep(1000) }

        #expect(live.events == (1...12).map { "\($0) app" })
        #expect(resumed.events == ["10 app", "11 app", "12 app"])
        // Events 1 to 7 left the ring (it keeps 5): the resume is told to start again from 8.
        #expect(fromBefore.events == ["7 gap"] + (8...12).map { "\($0) app" })
        #expect(filtered.events == ["8 app", "10 app", "12 app"])
    }
}
