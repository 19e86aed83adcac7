package import CampaignMockModel

extension PayloadChecker {
    /// The `aps` keys whose value is free text.
    private static let apsTextKeys: Set = ["category", "thread-id", "target-content-id", "filter-criteria"]
    /// Keys of Live Activity pushes, which this check leaves alone.
    private static let liveActivityKeys: Set = [
        "timestamp", "event", "content-state", "stale-date", "dismissal-date", "attributes-type", "attributes",
        "input-push-token", "input-push-channel",
    ]
    private static let interruptionLevels = ["passive", "active", "time-sensitive", "critical"]
    private static let alertTextKeys: Set = [
        "title", "subtitle", "body", "launch-image", "title-loc-key", "subtitle-loc-key", "loc-key", "action-loc-key",
    ]
    private static let alertArgumentKeys: Set = ["title-loc-args", "subtitle-loc-args", "loc-args"]
    /// The `alert` keys whose text iOS shows; an alert with none of them (`{}`) shows nothing.
    private static let alertShownKeys = ["title", "subtitle", "body", "title-loc-key", "subtitle-loc-key", "loc-key"]

    /// Checks an APNs payload (`{"aps": {...}, "_mId": "...", ...}`).
    package static func apns(_ payload: JSONValue) -> PayloadCheck {
        var findings = FindingList()
        guard case .object(let fields) = payload, !fields.isEmpty else {
            findings.error(.apnsEmpty, at: "", "the payload is empty or not an object: APNs refuses it")
            checkSDKKeys([:], at: "", platform: .ios, into: &findings)
            return findings.check
        }
        checkSize(
            payload, .apnsSize, at: "", "the payload", "APNs", "APNs refuses it and nothing reaches the device",
            into: &findings)
        switch fields["aps"] {
        case .object(let aps)?:
            checkKeys(of: aps, into: &findings)
            let media = mediaKeys(.ios).first { fields[$0] != nil }
            checkCombination(of: aps, media: media, into: &findings)
        case nil:
            findings.error(
                .apsMissing, at: "aps",
                "no `aps` object: iOS shows nothing, plays no sound and does not wake the app for this push")
        case let other?:
            findings.error(.apsType, at: "aps", "`aps` is \(other.kind), not an object: iOS ignores the push")
        }
        checkSDKKeys(fields, at: "", platform: .ios, into: &findings)
        return findings.check
    }

    /// The type and value of every `aps` key.
    private static func checkKeys(of aps: [String: JSONValue], into findings: inout FindingList) {
        for key in aps.keys.sorted() {
            let value = aps[key]!
            let path = payloadPath("aps", key)
            switch key {
            case "alert":
                checkAlert(value, into: &findings)
            case "badge":
                if (value.integer ?? -1) < 0 {
                    findings.error(
                        .apsBadgeType, at: path,
                        "`badge` is \(value.shown), not a whole number of 0 or more: iOS leaves the app "
                            + "icon's badge as it is")
                }
            case "sound":
                checkSound(value, into: &findings)
            case "content-available", "mutable-content":
                if !value.isFlagSet {
                    let effect =
                        key == "content-available" ? "the app is not woken" : "the service extension does not run"
                    findings.error(
                        .apsFlagValue, at: path,
                        "`\(key)` must be the number 1, it is \(value.shown): iOS reads it as absent, so \(effect)"
                    )
                }
            case _ where apsTextKeys.contains(key):
                if value.string == nil {
                    findings.error(.apsStringType, at: path, "`\(key)` is \(value.kind), not a string: iOS ignores it")
                }
            case "interruption-level":
                if !interruptionLevels.contains(value.string ?? "") {
                    findings.error(
                        .apsInterruptionLevel, at: path,
                        "`interruption-level` is \(value.shown), not one of "
                            + "\(interruptionLevels.joined(separator: ", ")): iOS uses `active`")
                }
            case "relevance-score":
                if value.isFraction { break }
                findings.error(
                    .apsRelevanceScore, at: path,
                    "`relevance-score` is \(value.shown), not a number from 0 to 1: iOS ignores it when "
                        + "it sorts the notification summary")
            case _ where liveActivityKeys.contains(key):
                break
            default:
                findings.warning(
                    .apsUnknownKey, at: path,
                    "`aps.\(key)` is not an APNs key: iOS ignores it (put the app's own keys at the top level)")
            }
        }
    }

    /// `alert`: a string, or an object of texts and localization arguments.
    private static func checkAlert(_ alert: JSONValue, into findings: inout FindingList) {
        let fields: [String: JSONValue]
        switch alert {
        case .string: return
        case .object(let object): fields = object
        default:
            findings.error(
                .apsAlertType, at: "aps.alert",
                "`alert` is \(alert.kind), not a string or an object: iOS shows no alert")
            return
        }
        for key in fields.keys.sorted() {
            let value = fields[key]!
            let path = payloadPath("aps.alert", key)
            if alertTextKeys.contains(key) {
                if value.string == nil {
                    findings.error(
                        .apsAlertType, at: path, "`\(key)` is \(value.kind), not a string: iOS does not show it")
                }
            } else if alertArgumentKeys.contains(key) {
                if case .array(let items) = value, items.allSatisfy({ $0.string != nil }) { continue }
                findings.error(
                    .apsAlertType, at: path,
                    "`\(key)` must be an array of strings: iOS cannot fill in the localized text with it")
            } else {
                findings.warning(.apsAlertUnknownKey, at: path, "`alert.\(key)` is not an APNs key: iOS ignores it")
            }
        }
    }

    /// `sound`: a file name, or for a critical alert `{critical: 1, name, volume}`.
    private static func checkSound(_ sound: JSONValue, into findings: inout FindingList) {
        let message: String?
        switch sound {
        case .string:
            message = nil
        case .object(let fields):
            let named = fields["name"]?.string != nil
            let critical = fields["critical"].map { $0 == .number(0) || $0.isFlagSet } ?? true
            let volume = fields["volume"]?.isFraction ?? true
            message =
                named && critical && volume
                ? nil : "a critical `sound` needs a string `name`, `critical` 1 and a `volume` from 0 to 1"
        default:
            message = "`sound` is \(sound.kind), not a file name or a critical-sound object"
        }
        if let message { findings.error(.apsSoundType, at: "aps.sound", message + ": iOS plays no sound") }
    }

    /// Whether `alert` shows text: a non-empty string, or an object with a non-empty title, subtitle, body or
    /// localization key.
    private static func showsText(_ alert: JSONValue?) -> Bool {
        switch alert {
        case .string(let text)?: return !text.isEmpty
        case .object(let fields)?: return alertShownKeys.contains { !(fields[$0]?.string ?? "").isEmpty }
        default: return false
        }
    }

    /// What the keys mean together: background pushes, the service extension, the media key found.
    private static func checkCombination(
        of aps: [String: JSONValue], media: String?, into findings: inout FindingList
    ) {
        let alert = showsText(aps["alert"])
        let visible = alert || aps["sound"] != nil || aps["badge"] != nil
        let background = aps["content-available"]?.isFlagSet == true
        let extensionRuns = aps["mutable-content"]?.isFlagSet == true
        if background && visible {
            findings.warning(
                .apsBackgroundWithAlert, at: "aps.content-available",
                "`content-available` with an alert, sound or badge is not a background push: it must be sent with "
                    + "`apns-push-type: alert` and priority 10 (at once) or 5 (as the device's power allows), and iOS "
                    + "may not wake the app for it; for a silent update leave them out")
        } else if background {
            findings.info(
                .apsBackground, at: "aps.content-available",
                "a background push: send it with `apns-push-type: background` and `apns-priority: 5`; iOS wakes the "
                    + "app when it sees fit (a few times an hour at most) and not after the user force-quit it")
        } else if !visible {
            findings.warning(
                .apsNothingToShow, at: "aps",
                "no alert, sound or badge and no `content-available`: the user sees nothing and the app is not woken")
        }
        if extensionRuns && !alert {
            findings.warning(
                .apsMutableContentWithoutAlert, at: "aps.mutable-content",
                "`mutable-content` without an alert that shows a title, subtitle or body: iOS runs the notification "
                    + "service extension only for pushes that show an alert, so it does not run")
        }
        if let media, !extensionRuns {
            findings.error(
                .apnsMediaWithoutExtension, at: media,
                "`\(media)` without `mutable-content: 1`: the notification service extension does not run, so no "
                    + "media is downloaded or shown")
        }
    }
}
