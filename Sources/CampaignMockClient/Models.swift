import Foundation

/// A page of a list, newest first; pass `nextCursor` as `before` for the next, older page.
public struct Page<Item: Sendable>: Sendable {
    public let items: [Item]
    /// How many match in all, not only on this page.
    public let total: Int
    public let nextCursor: Int64?
}

/// A registration the SDK sent, as `/_mock/wait` and the event stream give it.
public struct Registration: Codable, Sendable, Equatable {
    public let id: Int64
    public let receivedAt: String
    public let registrationToken: String
    public let integrationKey: String
    public let platform: String
    public let userKey: String
    /// `new`, `userKey`, `device`, `params` or `unchanged`.
    public let changes: [String]
    public let device: DeviceFields?
    public let params: [Param]?
}

/// The device fields of a registration (`deviceModel`, `osVersion`, …), as the SDK sent them.
public struct DeviceFields: Codable, Sendable, Equatable {
    public let deviceImei: String?
    public let deviceName: String?
    public let deviceModel: String?
    public let deviceBrand: String?
    public let deviceManufacturer: String?
    public let osName: String?
    public let osVersion: String?
    public let osLanguage: String?
}

/// An additional param; `type` is `string`, `integer`, `decimal` or `boolean`, `value` the text as sent.
public struct Param: Codable, Sendable, Equatable {
    public let name: String
    public let type: String
    public let value: String
}

/// A registered device.
public struct Device: Codable, Sendable, Equatable {
    public struct App: Codable, Sendable, Equatable {
        public let integrationKey: String
        public let name: String
        public let platform: String
    }

    public struct HistoryEntry: Codable, Sendable, Equatable {
        public let id: Int64
        public let receivedAt: String
        public let changes: [String]
        public let userKey: String
        public let device: DeviceFields
        public let params: [Param]
    }

    /// A push composed for the device, and when its hits arrived.
    public struct Message: Codable, Sendable, Equatable {
        public let messageId: String
        public let deliveryId: String
        public let sentAt: String?
        public let receivedAt: String?
        public let openedAt: String?
    }

    public let registrationToken: String
    public let application: App
    public let userKey: String
    public let device: DeviceFields
    public let params: [Param]
    public let disabled: Bool
    public let createdAt: String
    public let updatedAt: String
    public let registrationCount: Int
    /// With ``CampaignMockClient/device(token:app:)`` only.
    public let history: [HistoryEntry]?
    public let messages: [Message]?

    /// The param called `name`, if any.
    public func param(_ name: String) -> Param? { params.first { $0.name == name } }
}

/// A receive or open hit.
public struct TrackingEvent: Codable, Sendable, Equatable {
    public struct Link: Codable, Sendable, Equatable {
        public let messageId: String
        public let deliveryId: String
        public let registrationToken: String?
        public let integrationKey: String?
    }

    public let id: Int64
    public let receivedAt: String
    public let tag: Int
    public let type: String
    public let rawId: String
    public let messageHex: String?
    public let messageValue: String?
    public let messageUuid: String?
    public let deliveryId: String
    public let userAgent: String?
    public let remoteAddress: String?
    /// The push composed on the mock that the hit belongs to, if any.
    public let linked: Link?
}

/// A journaled request with its answer (a wait for requests gives it too).
public struct JournaledRequest: Codable, Sendable, Equatable {
    public struct Response: Codable, Sendable, Equatable {
        public let headers: [[String]]
        public let body: String
        public let bodyEncoding: String
        public let bodyTruncated: Bool
    }

    public let id: Int64
    public let receivedAt: String
    public let method: String
    public let target: String
    public let endpoint: String
    public let headers: [[String]]?
    public let body: String?
    public let status: Int
    public let reason: String?
    public let appKey: String?
    public let durationMs: Double
    public let response: Response?
}

public struct Application: Codable, Sendable, Equatable {
    public let name: String
    public let platform: String
    public let integrationKey: String
    public let enabled: Bool

    public init(name: String, platform: String, integrationKey: String, enabled: Bool = true) {
        self.name = name
        self.platform = platform
        self.integrationKey = integrationKey
        self.enabled = enabled
    }
}

/// A fault rule (see docs/ci.md, "Fault injection"); the presets give the SDK outcomes tests ask for most.
public struct FaultRule: Codable, Sendable, Equatable {
    public var id: String?
    /// `registration-ios`, `registration-android`, `tracking`, `soap`, `health` or `any`.
    public var endpoint: String
    public var appKey: String?
    public var token: String?
    public var method: String?
    public var status: Int?
    public var body: String?
    public var delayMs: Int?
    public var drop: Bool?
    public var reset: Bool?
    public var after: Int?
    public var times: Int?
    public var probability: Double?
    public var seed: Int?

    public init(
        id: String? = nil, endpoint: String, appKey: String? = nil, token: String? = nil, method: String? = nil,
        status: Int? = nil, body: String? = nil, delayMs: Int? = nil, drop: Bool? = nil, reset: Bool? = nil,
        after: Int? = nil, times: Int? = nil, probability: Double? = nil, seed: Int? = nil
    ) {
        self.id = id
        self.endpoint = endpoint
        self.appKey = appKey
        self.token = token
        self.method = method
        self.status = status
        self.body = body
        self.delayMs = delayMs
        self.drop = drop
        self.reset = reset
        self.after = after
        self.times = times
        self.probability = probability
        self.seed = seed
    }

    /// The legacy iOS SDK reports `FailureUnknownUUID`.
    public static func unknownIntegrationKey(_ key: String, platform: String = "ios") -> FaultRule {
        FaultRule(
            endpoint: "registration-\(platform)", status: 404, body: "Unknown integration key (mobileAppUuid): \(key)")
    }

    /// The legacy iOS SDK reports `FailureUnexpectedError` with `reason`; the AEP extension a failed registration.
    public static func serverError(_ endpoint: String = "any", status: Int = 500, reason: String = "Internal error")
        -> FaultRule
    {
        FaultRule(endpoint: endpoint, status: status, body: reason)
    }

    /// The connection closes without an answer: `FailureConnectionIssue` on the legacy iOS SDK.
    public static func connectionDropped(_ endpoint: String = "any") -> FaultRule {
        FaultRule(endpoint: endpoint, drop: true)
    }

    /// A slow network: every answer waits `milliseconds` (the AEP extension gives up after
    /// `campaignclassic.timeout`, 30 s by default).
    public static func slow(_ endpoint: String = "any", milliseconds: Int) -> FaultRule {
        FaultRule(endpoint: endpoint, delayMs: milliseconds)
    }

    /// A flaky server: `503` on a share of the requests, the same ones in every run with the same seed.
    public static func flaky(_ endpoint: String = "any", probability: Double, seed: Int = 1) -> FaultRule {
        FaultRule(endpoint: endpoint, status: 503, body: "Service Unavailable", probability: probability, seed: seed)
    }
}

/// A fault rule with how often it matched and fired.
public struct FaultStatus: Codable, Sendable, Equatable {
    public let rule: FaultRule
    public let matched: Int
    public let fired: Int
}

/// What to compose (see docs/push.md); give `token`, or `userKey` with `app`.
public struct PushRequest: Codable, Sendable, Equatable {
    public var token: String?
    public var userKey: String?
    public var app: String?
    public var title: String?
    public var body: String?
    public var sound: String?
    public var badge: Int?
    public var category: String?
    public var silent: Bool?
    public var mutableContent: Bool?
    public var mediaUrl: String?
    public var variables: [String: String]?
    /// `v7`, `v7-negative`, `v7-64` or `v8`.
    public var idStyle: String?
    public var bundleId: String?
    public var androidPackage: String?

    public init(
        token: String? = nil, userKey: String? = nil, app: String? = nil, title: String? = nil, body: String? = nil,
        sound: String? = nil, badge: Int? = nil, category: String? = nil, silent: Bool? = nil,
        mutableContent: Bool? = nil, mediaUrl: String? = nil, variables: [String: String]? = nil,
        idStyle: String? = nil, bundleId: String? = nil, androidPackage: String? = nil
    ) {
        self.token = token
        self.userKey = userKey
        self.app = app
        self.title = title
        self.body = body
        self.sound = sound
        self.badge = badge
        self.category = category
        self.silent = silent
        self.mutableContent = mutableContent
        self.mediaUrl = mediaUrl
        self.variables = variables
        self.idStyle = idStyle
        self.bundleId = bundleId
        self.androidPackage = androidPackage
    }
}

/// A composed push: one message per device.
public struct ComposedPush: Codable, Sendable, Equatable {
    public struct Message: Codable, Sendable, Equatable {
        public struct Tracking: Codable, Sendable, Equatable {
            /// `/r/?id=…,1`, the path the SDK calls when the notification arrives.
            public let receive: String
            /// `/r/?id=…,2`, when it is opened.
            public let open: String
        }

        public let registrationToken: String
        public let platform: String
        public let app: String
        public let messageId: String
        public let deliveryId: String
        /// The APNs payload (iOS).
        public let apns: JSONValue?
        /// The `.apns` file `xcrun simctl push` takes (iOS).
        public let apnsFile: String?
        public let simctl: String?
        /// The FCM HTTP v1 message (Android).
        public let fcm: JSONValue?
        public let adb: [String]?
        public let tracking: Tracking
    }

    public let id: Int64
    public let createdAt: String
    public let deliveryId: String
    public let idStyle: String
    public let messages: [Message]
    public let warnings: [String]
}

/// Any JSON value (the payloads of a composed push).
public enum JSONValue: Codable, Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    /// The value at `key` of an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}

// The admin API's envelopes.
struct WaitAnswer<Item: Decodable>: Decodable {
    let count: Int
    let items: [Item]
    let error: String?
}

struct ResetAnswer: Decodable { let deleted: [String: Int] }
struct ErrorAnswer: Decodable { let error: String }
struct DevicePage: Decodable {
    let devices: [Device]
    let total: Int
    let nextCursor: Int64?
}
struct EventPage: Decodable {
    let events: [TrackingEvent]
    let total: Int
    let nextCursor: Int64?
}
struct RequestPage: Decodable {
    let requests: [JournaledRequest]
    let total: Int
    let nextCursor: Int64?
}
struct ApplicationList: Decodable { let apps: [Application] }
struct FaultList: Decodable { let faults: [FaultStatus] }
