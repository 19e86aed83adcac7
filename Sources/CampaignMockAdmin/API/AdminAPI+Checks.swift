import CampaignMockChecks
import CampaignMockHTTP
import CampaignMockModel
import CampaignMockRuntime
import CampaignMockSystem

/// `GET /_mock/checks`: what the integration checks found in the apps' own traffic (docs/checks.md).
extension AdminAPI {
    func registerChecks(on group: inout RouteGroup) {
        group.add(.get, "/_mock/checks", respond: listChecks)
    }

    /// The findings, read from the checks' memory (never the store): `app`, `token`, `severity` (that one
    /// and above) and `since` (a time, or a mark: the findings whose evidence came after it) filter them.
    private func listChecks(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = try AdminResponse.query(request)
        try AdminResponse.allowOnly(query, ["app", "token", "severity", "since"])
        var filter = ChecksEngine.Filter(app: query["app"], token: query["token"])
        if let severity = query["severity"] {
            guard let minimum = CheckSeverity(rawValue: severity) else {
                throw AdminError(.badRequest, "severity must be one of \(CheckSeverity.acceptedValues)")
            }
            filter.minimum = minimum
        }
        if let mark = try mark(since: query["since"]) {
            filter.mark = (mark.request, mark.at)
        } else {
            filter.since = try query["since"].map(Self.timestamp)
        }
        faultRulesChanged()
        return AdminResponse.json(.ok, checks.report(filter))
    }

    /// Tells the checks which fault rules are set, after they changed: `fault-active` findings of rules
    /// that are gone clear.
    func faultRulesChanged() {
        checks.faultRules(Set(faults.list().compactMap(\.rule.id)))
    }

    /// The store was reset or replaced: the checks forget what they saw.
    func checksStartAfresh() {
        checks.reset()
        faultRulesChanged()
    }
}
