import CampaignMockModel
import Foundation
import Synchronization
import Testing

@testable import CampaignMockChecks
@testable import CampaignMockStorage

/// The checks of a running server between the store and the stream: a finding that appears goes out at
/// once, one that only changed goes out at the next tick, once, however often it changed.
@Suite(.timeLimit(.minutes(1))) struct IntegrationChecksTests {
    /// `count` hits of messages never composed, each with its journaled request: one finding.
    static func hits(_ count: Int) throws -> [CommittedChange] {
        try (0..<count).flatMap { index -> [CommittedChange] in
            let hit = HitRecord(
                trackingID: try TrackingID(parsing: "h3039,d\(index),1"), userAgent: nil, remoteAddress: nil,
                receivedAt: 1_790_000_000_000_000 + Int64(index) * 1000, link: nil)
            return [
                .hit(id: Int64(index + 1), hit),
                .request(id: Int64(index + 1), ChecksFeedTests.record(.tracking, 200)),
            ]
        }
    }

    @Test func anUpdateWaitsForTheTick() throws {
        let checks = IntegrationChecks(tickMilliseconds: 3_600_000) { [:] }
        let received = Mutex<[CheckChange]>([])
        checks.onChange { changes in received.withLock { $0 += changes } }
        let changes = try Self.hits(5)
        // One batch a request, as the writer commits them.
        for index in stride(from: 0, to: changes.count, by: 2) { checks.committed(Array(changes[index..<index + 2])) }
        // The report waits for every batch committed before it.
        #expect(checks.report().findings.first?.count == 5)
        #expect(received.withLock { $0 }.map(\.change) == [.appeared], "no update before the tick")
    }

    @Test func theTickSendsOneUpdateWithTheNewestState() throws {
        let checks = IntegrationChecks(tickMilliseconds: 10) { [:] }
        let received = Mutex<[CheckChange]>([])
        checks.onChange { changes in received.withLock { $0 += changes } }
        // One batch: the tick comes before or after it, never inside.
        checks.committed(try Self.hits(5))
        while !received.withLock({ $0.contains { $0.change == .updated } }) { usleep(1000) }
        let changes = received.withLock { $0 }
        #expect(changes.map(\.change) == [.appeared, .updated])
        #expect(changes.map(\.finding.count) == [1, 5])
        #expect(changes.last?.finding.evidence.requestIds == [1, 2, 3, 4, 5])
    }

    /// Nothing needs to read the findings for a batch to be taken in: the first batch since the last take-in
    /// has the queue take them all in `feedMilliseconds` later, and the appearance goes out (here the tick
    /// never comes).
    @Test func committedBatchesAreTakenInWithoutARead() throws {
        let checks = IntegrationChecks(tickMilliseconds: 3_600_000) { [:] }
        let received = Mutex<[CheckChange]>([])
        checks.onChange { changes in received.withLock { $0 += changes } }
        let changes = try Self.hits(3)
        for index in stride(from: 0, to: changes.count, by: 2) { checks.committed(Array(changes[index..<index + 2])) }
        while received.withLock({ $0.isEmpty }) { usleep(1000) }
        #expect(received.withLock { $0 }.map(\.change) == [.appeared])
        #expect(checks.report().findings.first?.count == 3)
    }
}
