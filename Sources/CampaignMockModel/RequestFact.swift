/// What became of one request to a Campaign endpoint, in types, beside the words of its journal entry (its
/// `reason`): the endpoint family it reached, the fault rule that fired on it, and why the registration
/// endpoint refused it. The pipeline sets it on the journal record it writes, and the store's sink hands it
/// on with that record, so the integration checks read the cause, never the words. It lives in memory: the
/// journal's file keeps the words, and a record read back from the file has no fact.
package struct RequestFact: Sendable, Equatable {
    package var endpoint: EndpointFamily
    /// The fault rule that fired on the request, if one did.
    package var fault: FiredFault?
    /// Why the registration endpoint refused the request, if it did.
    package var refusal: RegistrationError?

    package init(endpoint: EndpointFamily, fault: FiredFault? = nil, refusal: RegistrationError? = nil) {
        self.endpoint = endpoint
        self.fault = fault
        self.refusal = refusal
    }
}

/// A fault rule that fired on a request, by its id.
package enum FiredFault: Sendable, Equatable {
    /// It only delayed the request: the endpoint answered it (a refusal is then the endpoint's own).
    case delayed(rule: String)
    /// It answered, dropped or reset the request in the endpoint's place.
    case failed(rule: String)
}
