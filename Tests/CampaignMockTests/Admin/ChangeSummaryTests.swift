import Testing

@testable import CampaignMockRuntime

@Suite struct ChangeSummaryTests {
    private let notices = [
        ChangeNotice(kind: .registration, facts: [.app: "A", .token: "t1", .param("email"): "x@y"]),
        ChangeNotice(kind: .open, facts: [.deliveryId: "d1"]),
        ChangeNotice(kind: .request, facts: [.endpoint: "tracking", .status: "200"]),
    ]

    @Test func wakesOnlyWaitersOfTheKindsThatChanged() {
        let summary = ChangeSummary(notices)
        #expect(summary.mayMatch(kind: .registration, allowed: [:]))
        #expect(summary.mayMatch(kind: .open, allowed: [:]))
        #expect(!summary.mayMatch(kind: .receive, allowed: [:]))
    }

    @Test func comparesTheFactsTheNoticesCarry() {
        let summary = ChangeSummary(notices)
        #expect(summary.mayMatch(kind: .registration, allowed: [.app: ["A"], .token: ["t1"]]))
        #expect(!summary.mayMatch(kind: .registration, allowed: [.token: ["t2"]]))
        #expect(summary.mayMatch(kind: .registration, allowed: [.param("email"): ["x@y"]]))
        #expect(!summary.mayMatch(kind: .request, allowed: [.status: ["404"]]))
    }

    @Test func aFactNoNoticeCarriesMayMatch() {
        // The linked token of a tracking hit is known only after the commit: such a waiter must look.
        let summary = ChangeSummary(notices)
        #expect(summary.mayMatch(kind: .open, allowed: [.token: ["anything"]]))
    }

    @Test func aFactSomeNoticesLackMayMatch() {
        let summary = ChangeSummary([
            ChangeNotice(kind: .request, facts: [.app: "A"]), ChangeNotice(kind: .request, facts: [:]),
        ])
        #expect(summary.mayMatch(kind: .request, allowed: [.app: ["B"]]))
    }
}
