/// What `POST /_mock/reset` clears.
public enum ResetPart: String, Sendable, CaseIterable, Codable {
    case journal, events, devices, recipients, faults
    /// The integration checks' findings (kept in memory, not stored): the record of the run.
    case findings
}
