/// What `POST /_mock/reset` clears.
package enum ResetPart: String, Sendable, CaseIterable, Codable {
    case journal, events, devices, recipients, faults
}
