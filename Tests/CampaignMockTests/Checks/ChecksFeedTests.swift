import CampaignMockJournal
import CampaignMockModel
import Testing

@testable import CampaignMockChecks
@testable import CampaignMockPush
@testable import CampaignMockStorage

/// How the store's committed changes become what the checks observe: request ids joined to their change,
/// refusals and faults read from the journal record's fact, and what a composed message means for its hits.
@Suite struct ChecksFeedTests {
    /// A record as the pipeline writes it: its words, and the fact the checks read.
    static func record(
        _ endpoint: EndpointFamily, _ status: Int, reason: String? = nil, app: String? = nil,
        fault: FiredFault? = nil, refusal: RegistrationError? = nil
    ) -> JournalRecord {
        var record = JournalRecord(
            receivedAtMicros: 1_000, method: "POST", target: "/", endpoint: endpoint.rawValue, headersJSON: "[]",
            body: [], status: status, reason: reason ?? refusal?.reason, appKey: app, durationMicros: 0)
        record.fact = RequestFact(endpoint: endpoint, fault: fault, refusal: refusal)
        return record
    }

    @Test func aHitGetsTheIdOfTheRequestJournaledAfterIt() throws {
        let hit = HitRecord(
            trackingID: try TrackingID(parsing: "h3039,7a001,2"), userAgent: "Dalvik/2.1.0", remoteAddress: nil,
            receivedAt: 5_000, link: nil)
        let observations = ChecksFeed.observations(
            [.hit(id: 1, hit), .request(id: 42, Self.record(.tracking, 200))], knownKeys: { [:] })
        #expect(
            observations == [
                .hit(
                    CheckObservation.Hit(
                        kind: .open, trackingId: "h3039,7a001", deliveryId: "7a001", link: nil,
                        userAgent: "Dalvik/2.1.0",
                        at: 5_000, requestId: 42))
            ])
    }

    @Test func aRefusedRegistrationNamesTheKnownKeysOnlyForAnUnknownKey() {
        var asked = 0
        let known: () -> [String: Platform] = {
            asked += 1
            return ["k": .ios]
        }
        let observations = ChecksFeed.observations(
            [
                .request(
                    id: 1,
                    Self.record(
                        .registrationIOS, 404, reason: "Unknown integration key (mobileAppUuid): x; the ios keys are k",
                        app: "x", refusal: .unknownIntegrationKey("x"))),
                .request(id: 2, Self.record(.registrationIOS, 400, app: "k", refusal: .missingRegistrationToken)),
                .request(id: 3, Self.record(.registrationIOS, 500, reason: "could not store the request: full")),
                .request(id: 4, Self.record(.soap, 400, reason: "bad envelope")),
            ], knownKeys: known)
        #expect(asked == 1)
        #expect(observations.count == 2)
        guard case .registrationRefused(let first) = observations.first else {
            Issue.record("not a refusal: \(observations)")
            return
        }
        #expect(first.knownKeys == ["k": .ios] && first.requestId == 1 && first.app == "x")
    }

    @Test func aFaultThatFailedTheRequestIsToldFromOneThatOnlyDelayedIt() {
        let observations = ChecksFeed.observations(
            [
                .request(
                    id: 1,
                    Self.record(
                        .registrationIOS, 503, reason: "fault f1 fired: status 503",
                        fault: .failed(rule: "f1"))),
                .request(
                    id: 2,
                    Self.record(
                        .tracking, 0, reason: "fault slow-2 fired: delay 50 ms, drop",
                        fault: .failed(rule: "slow-2"))),
                .request(
                    id: 3,
                    Self.record(
                        .tracking, 200, reason: "fault f3 fired: delay 50 ms",
                        fault: .delayed(rule: "f3"))),
                .request(
                    id: 4,
                    Self.record(
                        .registrationAndroid, 404,
                        reason: "fault f4 fired: delay 5 ms; Unknown integration key (mobileAppUuid): y", app: "y",
                        fault: .delayed(rule: "f4"), refusal: .unknownIntegrationKey("y"))),
            ], knownKeys: { [:] })
        #expect(
            observations.map { observation -> String in
                switch observation {
                case .faultFailed(let failure): "fault \(failure.ruleId) \(failure.status)"
                case .registrationRefused(let refusal): "refused \(refusal.status) \(refusal.cause)"
                default: "other"
                }
            } == [
                "fault f1 503", "fault slow-2 0", #"refused 404 unknownIntegrationKey("y")"#,
            ])
    }

    @Test func theFactDecidesNotTheWordsOfTheReason() throws {
        // Words that read like a fault rule's, on a refusal the endpoint typed otherwise.
        let observations = ChecksFeed.observations(
            [
                .request(
                    id: 1,
                    Self.record(
                        .registrationIOS, 400, reason: "fault f1 fired: status 400", app: "k",
                        refusal: .missingRegistrationToken))
            ], knownKeys: { [:] })
        guard case .registrationRefused(let refusal) = try #require(observations.first) else {
            Issue.record("not a refusal: \(observations)")
            return
        }
        #expect(refusal.cause == .missingRegistrationToken && observations.count == 1)
    }

    @Test func aRegistrationIsIdenticalWhenTheStoreSaysNothingChanged() {
        let sets: [RegistrationChanges] = [[], .new, .userKey, [.device, .params], [.userKey, .device, .params]]
        let changes = sets.map { changed -> CommittedChange in
            var notice = RegistrationNotice(
                id: 1, receivedAt: "", registrationToken: "t", integrationKey: "k", platform: .android, userKey: "",
                changes: changed.names, device: DeviceFields(), params: [], receivedAtMicroseconds: 5)
            notice.changed = changed
            return .registration(notice)
        }
        let identical = ChecksFeed.observations(changes, knownKeys: { [:] }).map { observation -> Bool? in
            guard case .registered(let registration) = observation else { return nil }
            return registration.identical
        }
        #expect(identical == [true, false, false, false, false])
        // The words the history keeps, and the set they give back.
        #expect(
            sets.map(\.names) == [
                ["unchanged"], ["new"], ["userKey"], ["device", "params"], ["userKey", "device", "params"],
            ])
        #expect(sets.map { RegistrationChanges(names: $0.names) } == sets)
        // The history's column, written without arrays, for every set: the names joined by commas.
        let all = (0..<16).map { RegistrationChanges(rawValue: UInt8($0)) }
        #expect(all.map(\.column) == all.map { $0.names.joined(separator: ",") })
        #expect(all.map { RegistrationChanges(names: $0.column.split(separator: ",")) } == all)
    }

    /// The composer's own messages (docs/push.md): what the platform runs when each arrives.
    @Test func composedMessagesSayWhetherTheSDKTracksTheirReceive() throws {
        func facts(_ platform: Platform, _ request: PushRequest) throws -> CheckObservation.ComposedMessageFacts {
            let message = try PushComposer.message(
                request, device: (token: "t", platform: platform, app: "a"), messageID: "1000001", deliveryID: "7a001")
            return ChecksFeed.composed(message, at: 0)
        }
        let visible = try facts(.ios, PushRequest(title: "Sale", body: "20% off"))
        #expect(visible.receive == .foregroundOrExtension && !visible.silent)
        let rich = try facts(.ios, PushRequest(title: "Sale", mediaUrl: "https://example.com/a.png"))
        #expect(rich.receive == .foregroundOrExtension)
        let silent = try facts(.ios, PushRequest(silent: true))
        #expect(silent.receive == .always && silent.silent)
        let android = try facts(.android, PushRequest(title: "Sale"))
        #expect(android.receive == .always && !android.silent)
        let androidSilent = try facts(.android, PushRequest(silent: true, variables: ["VAR": "x"]))
        #expect(androidSilent.receive == .always && androidSilent.silent)
    }
}
