package import CampaignMockModel
import CampaignMockSupport

/// One thing the integration checks see happen, as the store committed it (``ChecksFeed`` makes these from
/// the writer's changes), in types: a cause, a rule id, an endpoint family, never the words of a reason
/// (a rule that read them would change with the words). Times are microseconds since 1970; `requestId` is
/// the journaled request it came with, when there is one. What a client chose (tokens, keys, ids, a user agent) is kept at most
/// ``ClientText/keyBytes`` bytes and a hash (``ClientText/key(_:)``): the checks remember tens of thousands of
/// devices and messages, and write these texts into findings.
package enum CheckObservation: Sendable, Equatable {
    /// An SDK registration was accepted and stored.
    case registered(Registration)
    /// A registration was refused by the server (not by a fault rule).
    case registrationRefused(RefusedRegistration)
    /// A tracking hit was stored.
    case hit(Hit)
    /// A push message was composed for a device.
    case composed(ComposedMessageFacts)
    /// APNs or FCM accepted a composed message.
    case sendAccepted(AcceptedSend)
    /// A request failed because a fault rule fired.
    case faultFailed(FaultFailure)

    package struct Registration: Sendable, Equatable {
        package var app: String
        package var platform: Platform
        package var token: String
        package var userKey: String
        package var params: [AdditionalParam]
        /// Nothing changed since the device's previous registration (the store says `unchanged`).
        package var identical: Bool
        package var at: Int64
        package var requestId: Int64?

        package init(
            app: String, platform: Platform, token: String, userKey: String, params: [AdditionalParam],
            identical: Bool, at: Int64, requestId: Int64? = nil
        ) {
            self.app = ClientText.key(app)
            self.platform = platform
            self.token = ClientText.key(token)
            self.userKey = ClientText.key(userKey)
            self.params = params
            self.identical = identical
            self.at = at
            self.requestId = requestId
        }
    }

    package struct RefusedRegistration: Sendable, Equatable {
        /// The endpoint's platform (`registerIOS.jssp` or `registerAndroid.jssp`).
        package var platform: Platform
        /// The integration key the request named, if any.
        package var app: String?
        package var status: Int
        /// Why the endpoint refused it.
        package var cause: RegistrationError
        /// The integration keys the server knows, for naming the nearest to an unknown one.
        package var knownKeys: [String: Platform]
        package var at: Int64
        package var requestId: Int64?

        package init(
            platform: Platform, app: String?, status: Int, cause: RegistrationError,
            knownKeys: [String: Platform] = [:], at: Int64, requestId: Int64? = nil
        ) {
            self.platform = platform
            self.app = app.map(ClientText.key)
            self.status = status
            self.cause = cause
            self.knownKeys = knownKeys
            self.at = at
            self.requestId = requestId
        }
    }

    package struct Hit: Sendable, Equatable {
        package var kind: TrackingEvent.Kind
        /// The tracking id without its tag, as sent: `h3039,7a001`.
        package var trackingId: String
        /// `_dId` as the hit names it.
        package var deliveryId: String
        /// The message the mock issued that the hit is linked to, if any.
        package var link: TrackingEvent.Link?
        package var userAgent: String?
        package var at: Int64
        package var requestId: Int64?

        package init(
            kind: TrackingEvent.Kind, trackingId: String, deliveryId: String, link: TrackingEvent.Link?,
            userAgent: String?,
            at: Int64, requestId: Int64? = nil
        ) {
            self.kind = kind
            self.trackingId = ClientText.key(trackingId)
            self.deliveryId = ClientText.key(deliveryId)
            self.link = link
            self.userAgent = userAgent.map { ClientText.capped($0, bytes: ClientText.keyBytes) }
            self.at = at
            self.requestId = requestId
        }
    }

    /// What a composed message means for the hits that should follow.
    package struct ComposedMessageFacts: Sendable, Equatable {
        package var messageId: String
        package var deliveryId: String
        package var app: String
        package var platform: Platform
        package var token: String
        package var receive: ReceiveTracking
        /// Nothing to show: iOS `content-available` without alert, sound or badge; Android data without a
        /// title or body.
        package var silent: Bool
        package var at: Int64

        package init(
            messageId: String, deliveryId: String, app: String, platform: Platform, token: String,
            receive: ReceiveTracking, silent: Bool, at: Int64
        ) {
            self.messageId = messageId
            self.deliveryId = deliveryId
            self.app = ClientText.key(app)
            self.platform = platform
            self.token = ClientText.key(token)
            self.receive = receive
            self.silent = silent
            self.at = at
        }
    }

    package struct AcceptedSend: Sendable, Equatable {
        package var messageId: String
        package var token: String
        package var app: String
        package var provider: PushProvider
        package var at: Int64

        package init(messageId: String, token: String, app: String, provider: PushProvider, at: Int64) {
            self.messageId = messageId
            self.token = ClientText.key(token)
            self.app = ClientText.key(app)
            self.provider = provider
            self.at = at
        }
    }

    package struct FaultFailure: Sendable, Equatable {
        package var ruleId: String
        package var endpoint: EndpointFamily
        /// The status answered; 0 when the connection was dropped or reset.
        package var status: Int
        package var app: String?
        package var at: Int64
        package var requestId: Int64?

        package init(
            ruleId: String, endpoint: EndpointFamily, status: Int, app: String?, at: Int64, requestId: Int64? = nil
        ) {
            self.ruleId = ruleId
            self.endpoint = endpoint
            self.status = status
            self.app = app.map(ClientText.key)
            self.at = at
            self.requestId = requestId
        }
    }
}

/// Whether the SDK tracks a message's receive, as the platforms run the app's code (docs/checks.md).
package enum ReceiveTracking: Sendable, Equatable {
    /// The app's code runs when it arrives, so a correct integration sends a receive hit: an Android data
    /// message (`onMessageReceived`), an iOS push with `content-available`
    /// (`didReceiveRemoteNotification:fetchCompletionHandler:`).
    case always
    /// An iOS push that shows a notification without `content-available`: in the background no app code
    /// runs until it is tapped, so a receive comes only in the foreground or from a notification service
    /// extension.
    case foregroundOrExtension
}
