package import CampaignMockHTTP
package import CampaignMockModel
package import CampaignMockStorage
import CampaignMockSupport

/// What a Campaign endpoint decided for one request: the answer, and the state change to commit
/// before the answer is sent.
package struct EndpointResult: Sendable {
    package var response: HTTPResponse
    /// The integration key the request named, for the journal (its index in memory) and the log: at most
    /// ``ClientText/keyBytes`` bytes and a hash (``ClientText/key(_:)``).
    package var appKey: String?
    /// Why the request was refused, or a note on what it did (a package installed), for the journal and the
    /// log: at most ``ClientText/logBytes`` bytes (``ClientText/capped(_:bytes:)``).
    package var reason: String?
    /// Why a registration was refused, and the fault rule that fired on the request: the journal record's
    /// ``RequestFact``, which the integration checks and the metrics read instead of `reason`.
    package var refusal: RegistrationError?
    package var fault: FiredFault?
    /// The change to store; it is written in the same job as the journal entry (and what it writes is
    /// handed to the waiters and the event stream by the store's sink).
    package var change: (@Sendable (StoreTransaction) throws -> Void)?

    package init(
        response: HTTPResponse, appKey: String? = nil, reason: String? = nil, refusal: RegistrationError? = nil,
        change: (@Sendable (StoreTransaction) throws -> Void)? = nil
    ) {
        self.response = response
        self.appKey = appKey.map(ClientText.key)
        self.reason = reason.map { ClientText.capped($0) }
        self.refusal = refusal
        self.change = change
    }

    /// A refusal: the error's response, its reason, no change.
    package static func refused(
        _ error: HTTPError, appKey: String? = nil, refusal: RegistrationError? = nil
    ) -> EndpointResult {
        EndpointResult(response: error.response, appKey: appKey, reason: error.reason, refusal: refusal)
    }
}
