import Foundation

/// A page of a list, newest first; pass `nextCursor` as `before` for the next, older page.
public struct Page<Item: Sendable>: Sendable {
    public let items: [Item]
    /// How many match in all, not only on this page.
    public let total: Int
    public let nextCursor: Int64?
}

// The values the admin API answers with are the server's own types, from CampaignMockModel (re-exported by
// this module): one declaration each, so the client and the server cannot drift apart. These names are the
// ones this client has always used.

/// A registration the SDK sent, as `/_mock/wait` and the event stream give it: the fields of an entry of
/// the device's history (``DeviceSubscription/Registration``, read as its own: `registration.userKey`) with
/// the device's token, integration key and platform.
public typealias Registration = RegistrationNotice
/// An additional param: `kind` (`type` in JSON) is `string`, `integer`, `decimal` or `boolean`, `value` the
/// text as sent.
public typealias Param = AdditionalParam
/// A registered device (with its history and messages from ``CampaignMockClient/device(token:app:)``).
public typealias Device = DeviceSubscription
/// A journaled request with its answer (a wait for requests gives it too; the event stream gives a
/// ``RequestSummary``).
public typealias JournaledRequest = JournalEntry
/// The two tracking hits the SDKs send: receive (tag 1) and open (tag 2).
public typealias EventKind = TrackingEvent.Kind
