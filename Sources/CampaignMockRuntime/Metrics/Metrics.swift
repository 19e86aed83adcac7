package import CampaignMockModel
package import CampaignMockStorage
import Synchronization

/// Counters for `GET /_mock/metrics`, in the Prometheus text format (version 0.0.4).
package final class Metrics: Sendable {
    /// Upper bounds of the latency histogram, in seconds.
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    private struct Histogram {
        var counts = [Int](repeating: 0, count: Metrics.buckets.count)
        var total = 0
        var sum = 0.0

        mutating func record(_ seconds: Double) {
            if let bucket = Metrics.buckets.firstIndex(where: { seconds <= $0 }) { counts[bucket] += 1 }
            total += 1
            sum += seconds
        }
    }

    /// What one endpoint label has answered: one lookup by its name per request (hashing the name
    /// twice, for the counts and the histogram, cost a fifth of the metrics' part of a health check).
    private struct EndpointCounts {
        var statuses: [Int: Int] = [:]
        var latency = Histogram()

        mutating func record(status: Int, seconds: Double) {
            statuses[status, default: 0] += 1
            latency.record(seconds)
        }
    }

    private struct State {
        var endpoints: [String: EndpointCounts] = [:]
        var registrations: [String: Int] = [:]
        var trackingEvents: [TrackingEvent.Kind: Int] = [:]
        var faultsFired: [String: Int] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// Metrics that count the stored tracking hits of every batch `sink` hands on.
    package convenience init(sink: ChangeSink) {
        self.init()
        sink.subscribe { [weak self] changes in
            for case .hit(_, let hit) in changes { self?.recordTrackingEvent(hit.trackingID.tag) }
        }
    }

    /// Counts one answered request of `endpoint` with `status`, taking `seconds`.
    package func recordRequest(endpoint: String, status: Int, seconds: Double) {
        // Updated in place: a copied-out histogram copied its bucket array on every request.
        state.withLock { state in
            state.endpoints[endpoint, default: EndpointCounts()].record(status: status, seconds: seconds)
        }
    }

    /// How a registration request ended, from the types the pipeline holds (never the words of a reason).
    package enum RegistrationOutcome: Sendable, Equatable {
        case accepted
        /// The endpoint refused it, for this cause.
        case refused(RegistrationError)
        /// A fault rule answered, dropped or reset it in the endpoint's place.
        case fault
        /// The store could not keep it.
        case storeError
        /// Anything else the endpoint answered.
        case status(Int)

        /// The `reason` label of `campaign_mock_registrations_total` (`accepted` has none).
        var label: String {
            switch self {
            case .accepted: "accepted"
            case .refused(let cause): cause.code
            case .fault: "fault"
            case .storeError: "store_error"
            case .status(let status): "status_\(status)"
            }
        }
    }

    /// Counts a registration: `accepted`, or the reason it was rejected.
    package func recordRegistration(_ outcome: RegistrationOutcome) {
        state.withLock { $0.registrations[outcome.label, default: 0] += 1 }
    }

    package func recordTrackingEvent(_ kind: TrackingEvent.Kind) {
        state.withLock { $0.trackingEvents[kind, default: 0] += 1 }
    }

    package func recordFault(ruleID: String) {
        state.withLock { $0.faultsFired[ruleID, default: 0] += 1 }
    }

    /// The exposition text; `journalDropped` and `openConnections` are read by the caller.
    package func render(journalDropped: Int64, openConnections: Int, waiters: Int, streams: Int = 0) -> String {
        let state = state.withLock { $0 }
        var text = ""
        func header(_ name: String, _ type: String, _ help: String) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        header("campaign_mock_requests_total", "counter", "Answered requests by endpoint family and status.")
        let endpoints = state.endpoints.keys.sorted()
        for endpoint in endpoints {
            let statuses = state.endpoints[endpoint]!.statuses
            for status in statuses.keys.sorted(by: { "\($0)" < "\($1)" }) {
                text +=
                    "campaign_mock_requests_total{endpoint=\"\(endpoint)\",status=\"\(status)\"} \(statuses[status]!)\n"
            }
        }
        header("campaign_mock_request_duration_seconds", "histogram", "Time from a complete request to its answer.")
        for endpoint in endpoints {
            let histogram = state.endpoints[endpoint]!.latency
            var cumulative = 0
            for (bound, count) in zip(Self.buckets, histogram.counts) {
                cumulative += count
                text +=
                    "campaign_mock_request_duration_seconds_bucket{endpoint=\"\(endpoint)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            text +=
                "campaign_mock_request_duration_seconds_bucket{endpoint=\"\(endpoint)\",le=\"+Inf\"} \(histogram.total)\n"
            text += "campaign_mock_request_duration_seconds_sum{endpoint=\"\(endpoint)\"} \(histogram.sum)\n"
            text += "campaign_mock_request_duration_seconds_count{endpoint=\"\(endpoint)\"} \(histogram.total)\n"
        }
        header("campaign_mock_registrations_total", "counter", "Registrations accepted, or rejected by reason.")
        for result in state.registrations.keys.sorted() {
            let labels = result == "accepted" ? "result=\"accepted\"" : "result=\"rejected\",reason=\"\(result)\""
            text += "campaign_mock_registrations_total{\(labels)} \(state.registrations[result]!)\n"
        }
        header("campaign_mock_tracking_events_total", "counter", "Stored tracking hits by tag (1 received, 2 opened).")
        for kind in TrackingEvent.Kind.allCases {
            guard let count = state.trackingEvents[kind] else { continue }
            text += "campaign_mock_tracking_events_total{tag=\"\(kind.tag)\"} \(count)\n"
        }
        header("campaign_mock_faults_fired_total", "counter", "Fault rule firings by rule id.")
        for rule in state.faultsFired.keys.sorted() {
            text += "campaign_mock_faults_fired_total{rule=\"\(rule)\"} \(state.faultsFired[rule]!)\n"
        }
        header(
            "campaign_mock_journal_dropped_total", "counter", "Journal entries dropped because the journal was full.")
        text += "campaign_mock_journal_dropped_total \(journalDropped)\n"
        header("campaign_mock_open_connections", "gauge", "Open client connections.")
        text += "campaign_mock_open_connections \(openConnections)\n"
        header("campaign_mock_waiters", "gauge", "Long-poll waiters waiting now.")
        text += "campaign_mock_waiters \(waiters)\n"
        header("campaign_mock_event_streams", "gauge", "Readers of /_mock/stream connected now.")
        text += "campaign_mock_event_streams \(streams)\n"
        return text
    }
}
