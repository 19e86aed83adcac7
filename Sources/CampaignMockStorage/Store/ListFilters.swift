package import CampaignMockModel

/// Which devices a listing returns.
package struct DeviceFilter: Sendable, Equatable {
    package var applicationKey: String?
    package var platform: Platform?
    package var userKey: String?
    package var registrationToken: String?
    /// `param.<name>=<value>`: the param's text must equal the value.
    package var params: [(name: String, value: String)] = []
    /// `q`: text found (ignoring ASCII case) in the token, userKey, device fields, params or application.
    package var search: String?

    package init() {}

    package static func == (lhs: DeviceFilter, rhs: DeviceFilter) -> Bool {
        lhs.applicationKey == rhs.applicationKey && lhs.platform == rhs.platform && lhs.userKey == rhs.userKey
            && lhs.registrationToken == rhs.registrationToken && lhs.params.map(\.name) == rhs.params.map(\.name)
            && lhs.params.map(\.value) == rhs.params.map(\.value) && lhs.search == rhs.search
    }
}

/// Which events a listing returns.
package struct EventFilter: Sendable, Equatable {
    package var tag: TrackingEvent.Kind?
    /// Stored hex values to match (from a hex, a decimal `_mId`, or a value).
    package var messageValues: [Int64]?
    package var messageUUID: String?
    package var deliveryID: String?
    package var registrationToken: String?
    /// Microseconds since 1970; events at or after it.
    package var since: Int64?
    /// Events with a greater id (those after a mark).
    package var afterID: Int64?
    /// Set when the filters contradict each other.
    package var matchesNothing = false

    package init() {}
}
