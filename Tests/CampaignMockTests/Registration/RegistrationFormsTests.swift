import Foundation
import Testing

@testable import CampaignMockModel

/// One registration value, three JSON forms the users' suites read: a device's history entry (with its id),
/// the item of a wait and of the event stream (with its device's key), and the snapshot's (without an id).
@Suite("a registration's JSON forms")
struct RegistrationFormsTests {
    private let registration = DeviceSubscription.Registration(
        id: 7, receivedAt: "2026-11-23T09:00:00.123Z", changed: [.userKey, .params], userKey: "jane@example.com",
        device: DeviceFields(osName: "iOS"), params: [AdditionalParam(name: "plan", value: "gold")],
        receivedAtMicroseconds: 1_795_424_400_123_000)
    /// Its JSON without the `id`, the keys sorted as the admin API and the snapshot write them.
    private let unnumbered =
        #"{"changes":["userKey","params"],"device":{"osName":"iOS"},"#
        + #""params":[{"name":"plan","type":"string","value":"gold"}],"#
        + #""receivedAt":"2026-11-23T09:00:00.123Z","userKey":"jane@example.com"}"#

    @Test func aHistoryEntryHasItsID() throws {
        let text = try encoderText(registration)
        #expect(text == unnumbered.replacingOccurrences(of: #""params":"#, with: #""id":7,"params":"#))
        var decoded = try JSONDecoder().decode(DeviceSubscription.Registration.self, from: Data(text.utf8))
        #expect(decoded.receivedAtMicroseconds == nil)
        decoded.receivedAtMicroseconds = registration.receivedAtMicroseconds
        #expect(decoded == registration)
    }

    @Test func aNoticeIsTheRegistrationWithItsDevicesKey() throws {
        let notice = RegistrationNotice(
            registrationToken: "t0k3n", integrationKey: "key", platform: .ios, registration: registration)
        let text = try encoderText(notice)
        let expected =
            #"{"changes":["userKey","params"],"device":{"osName":"iOS"},"id":7,"integrationKey":"key","#
            + #""params":[{"name":"plan","type":"string","value":"gold"}],"platform":"ios","#
            + #""receivedAt":"2026-11-23T09:00:00.123Z","registrationToken":"t0k3n","userKey":"jane@example.com"}"#
        #expect(text == expected)
        let decoded = try JSONDecoder().decode(RegistrationNotice.self, from: Data(text.utf8))
        #expect(decoded.registrationToken == "t0k3n")
        #expect(decoded.changed == [.userKey, .params])
        #expect(decoded.userKey == notice.userKey)
    }

    /// The snapshot keeps no ids: a device's history is written without them, and read back with id 0.
    @Test func theSnapshotWritesTheHistoryWithoutIDs() throws {
        let device = Snapshot.Device(
            integrationKey: "key", registrationToken: "t0k3n", userKey: "jane@example.com", device: DeviceFields(),
            params: [], disabled: false, createdAt: "2026-11-23T09:00:00.000Z", updatedAt: "2026-11-23T09:00:00.123Z",
            history: Snapshot.History([registration]))
        let text = try encoderText(device)
        #expect(text.contains(#""history":["# + unnumbered + "]"))
        #expect(!text.contains(#""id""#))
        let decoded = try JSONDecoder().decode(Snapshot.Device.self, from: Data(text.utf8))
        #expect(decoded.history.registrations.map(\.id) == [0])
        #expect(try encoderText(decoded) == text)
    }

    /// The words are the JSON's, in their order; `unchanged` is the empty set.
    @Test func theChangesInWordsAreTheTypedChanges() {
        var entry = registration
        entry.changes = ["params", "new"]
        #expect(entry.changed == [.new, .params])
        #expect(entry.changes == ["new", "params"])
        entry.changes = ["unchanged"]
        #expect(entry.changed == [])
        #expect(entry.changes == ["unchanged"])
    }
}
