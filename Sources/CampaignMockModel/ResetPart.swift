/// What `POST /_mock/reset` clears.
public enum ResetPart: String, Sendable, CaseIterable, Codable {
    case journal, events, devices, recipients, faults
}
