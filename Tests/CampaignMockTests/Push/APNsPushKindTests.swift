import Testing

@testable import CampaignMockModel
@testable import CampaignMockPush

/// `apns-push-type` follows the payload: background only for `content-available` with nothing to show.
@Suite struct APNsPushKindTests {
    private func payload(_ aps: [String: JSONValue]) -> JSONValue {
        .object(["aps": .object(aps), "_mId": .string("1"), "_dId": .string("7a001")])
    }

    @Test func aSilentPushIsBackground() {
        #expect(APNsPushKind(payload: payload(["content-available": .number(1)])) == .background)
    }

    @Test func anythingToShowMakesItAnAlert() {
        #expect(APNsPushKind(payload: payload(["alert": .object(["body": .string("Hi")])])) == .alert)
        #expect(APNsPushKind(payload: payload(["content-available": .number(1), "badge": .number(3)])) == .alert)
        #expect(
            APNsPushKind(payload: payload(["content-available": .number(1), "sound": .string("default")])) == .alert)
        #expect(APNsPushKind(payload: payload(["content-available": .number(0)])) == .alert)
        #expect(APNsPushKind(payload: .object([:])) == .alert)
    }
}
