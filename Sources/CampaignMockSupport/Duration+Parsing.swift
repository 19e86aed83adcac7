import CampaignMockHTTP
package import CampaignMockSystem

/// Milliseconds from `500ms`, `10s`, `2m`, `24h`; a bare number is seconds; at most 7 days. The message
/// does not name the setting or field: the caller does.
package func parseDuration(_ value: String) throws(ConfigurationError) -> Int {
    let text = value.trimmingASCIISpaces().lowercased()
    for (suffix, factor) in [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("", 1000)]
    where text.hasSuffix(suffix) {
        if let count = Double(text.dropLast(suffix.count)), count >= 0, count * Double(factor) <= 604_800_000 {
            return Int(count * Double(factor))
        }
    }
    throw ConfigurationError("'\(value)' is not a valid duration (e.g. 500ms, 10s, 2m, 24h)")
}
