import CampaignMockModel
import CampaignMockSupport
import CampaignMockSystem

/// The rules over registrations: `registration-refused`, `token-platform-mismatch`, `param-drift`,
/// `user-key-missing`, `registration-storm`; and `fault-active`.
extension ChecksEngine {
    struct DeviceKey: Hashable, Sendable {
        var app: String
        var token: String
    }

    struct DeviceState: Sendable {
        var hasUserKey: Bool
        /// The times of its latest identical registrations, within the storm window.
        var identical: [Int64] = []
    }

    struct ApplicationState: Sendable {
        /// Each param as first seen, by its name in lower case.
        var params: [String: ParamSeen] = [:]
        var userKeys = UserKeyCounts()
        /// The latest device to register without a userKey (its token and platform): the one a finding
        /// names when a device with a userKey makes the devices disagree.
        var lastWithoutUserKey: (token: String, platform: Platform)?

        /// Its devices were deleted: none counts for `user-key-missing`.
        mutating func forgetDevices() {
            userKeys = UserKeyCounts()
            lastWithoutUserKey = nil
        }

        /// Remembers the params of `registration` not seen before; returns those that differ from their
        /// first sighting, with it.
        mutating func drifts(of registration: CheckObservation.Registration) -> [(ParamSeen, AdditionalParam)] {
            var drifts: [(ParamSeen, AdditionalParam)] = []
            for param in registration.params where !param.name.isEmpty {
                let name = param.name.lowercased()
                guard let first = params[name] else {
                    if params.count < ChecksEngine.paramLimit {
                        params[name] = ParamSeen(param: param, token: registration.token)
                    }
                    continue
                }
                if first.param.name != param.name
                    || ChecksEngine.kindGroup(first.param.kind) != ChecksEngine.kindGroup(param.kind)
                {
                    drifts.append((first, param))
                }
            }
            return drifts
        }
    }

    /// An application's devices with and without a userKey.
    struct UserKeyCounts: Equatable, Sendable {
        var with = 0
        var without = 0

        /// Some devices have a userKey and others not: `user-key-missing`.
        var disagree: Bool { with > 0 && without > 0 }

        mutating func count(userKey: Bool, by step: Int) {
            if userKey { with += step } else { without += step }
        }

        /// Applies `change`; returns the counts before and after it.
        mutating func apply(_ change: (inout Self) -> Void) -> (before: Self, now: Self) {
            let before = self
            change(&self)
            return (before, self)
        }
    }

    struct ParamSeen: Sendable {
        var param: AdditionalParam
        var token: String
    }

    /// Params remembered per application: far more than a subscription schema has fields.
    static let paramLimit = 256

    mutating func registered(_ registration: CheckObservation.Registration, _ changes: inout [CheckChange]) {
        tokenShape(registration, &changes)
        paramDrift(registration, &changes)
        let hasUserKey = !registration.userKey.isEmpty
        let identical = registration.identical
        let at = registration.at
        let windowStart = at - settings.stormWindow
        // A known device is changed in place (one lookup); whether it had a userKey, and its identical
        // registrations within the window.
        let key = DeviceKey(app: registration.app, token: registration.token)
        let known = devices.update(key) { device in
            let had = device.hasUserKey
            device.hasUserKey = hasUserKey
            if identical {
                device.identical.removeAll { $0 <= windowStart }
                device.identical.append(at)
            }
            return (hadUserKey: had, identical: device.identical.count)
        }
        if known == nil {
            let device = DeviceState(hasUserKey: hasUserKey, identical: identical ? [at] : [])
            if let evicted = devices.insert(key, device) { forget(evicted.key, evicted.value, &changes) }
        }
        let identicalCount = known?.identical ?? (identical ? 1 : 0)
        if identical && identicalCount >= settings.stormCount { storm(registration, identicalCount, &changes) }
        if !hasUserKey {
            applications[registration.app, default: ApplicationState()].lastWithoutUserKey = (
                registration.token, registration.platform
            )
        }
        guard let had = known?.hadUserKey else {
            return recount(registration.app, by: registration, &changes) { $0.count(userKey: hasUserKey, by: 1) }
        }
        if had != hasUserKey {
            recount(registration.app, by: registration, &changes) { counts in
                counts.count(userKey: had, by: -1)
                counts.count(userKey: hasUserKey, by: 1)
            }
        } else if !hasUserKey {
            // Counted already, and the latest device to come without a userKey.
            let counts = applications[registration.app]?.userKeys ?? UserKeyCounts()
            userKeys(registration.app, before: counts, now: counts, by: registration, &changes)
        }
        // Otherwise as it was: the counts do not change.
    }

    /// The device of `token` in `app` was removed: it no longer counts, and the findings about it clear.
    mutating func forgetDevice(app: String, token: String) -> [CheckChange] {
        var changes: [CheckChange] = []
        let key = DeviceKey(app: app, token: token)
        if let device = devices.remove(key) { forget(key, device, &changes) }
        let about = findings.entries.filter { $0.value.registrationToken == token && ($0.value.app ?? app) == app }
        for found in about.keys.sorted(by: { $0.subject < $1.subject }) { clear(found, &changes) }
        return changes
    }

    /// A device forgotten to make room: it no longer counts.
    private mutating func forget(_ key: DeviceKey, _ device: DeviceState, _ changes: inout [CheckChange]) {
        recount(key.app, by: nil, &changes) { $0.count(userKey: device.hasUserKey, by: -1) }
    }

    // MARK: - token-platform-mismatch

    private mutating func tokenShape(_ registration: CheckObservation.Registration, _ changes: inout [CheckChange]) {
        let token = registration.token
        let shape: String
        switch registration.platform {
        case .android where Self.looksLikeAPNs(token):
            shape = "a \(token.utf8.count)-hex-digit APNs device token"
        case .ios where Self.looksLikeFCM(token):
            shape = "an FCM registration token (\"…:APA91…\")"
        default:
            return
        }
        let own = registration.platform == .ios ? "iOS" : "Android"
        let other = registration.platform == .ios ? "Android" : "iOS"
        record(
            Note(
                rule: .tokenPlatformMismatch, subject: "\(registration.app):\(token)", severity: .error,
                title: "An \(other) token registered under the \(own) key",
                message:
                    "The token registered under \(registration.platform.withArticle) application's key "
                    + "\(registration.app) is \(shape): the \(other) build registers with the \(own) integration "
                    + "key. Campaign would send this device's pushes through the wrong service.",
                fix:
                    "Give each build its own integration key: campaignclassic.ios.integrationKey and "
                    + "campaignclassic.android.integrationKey (AEP extension), setIntegrationKey in each app "
                    + "(legacy SDK).",
                app: registration.app, platform: registration.platform, token: token, at: registration.at,
                requestId: registration.requestId), &changes)
    }

    /// An APNs device token as the SDKs send it: an even number (64 and more) of hex digits.
    static func looksLikeAPNs(_ token: String) -> Bool {
        token.utf8.count >= 64 && token.utf8.count % 2 == 0
            && token.utf8.allSatisfy { ASCII.hexValue($0) != nil }
    }

    /// An FCM registration token: the app instance's id, a colon, then `APA91` and more.
    static func looksLikeFCM(_ token: String) -> Bool {
        token.contains(":APA91")
    }

    // MARK: - param-drift

    private mutating func paramDrift(_ registration: CheckObservation.Registration, _ changes: inout [CheckChange]) {
        guard !registration.params.isEmpty else { return }
        // In place: the application's params are not copied when a new one is remembered.
        for (first, param) in applications[registration.app, default: ApplicationState()].drifts(of: registration) {
            let was = first.param
            let drift =
                was.name != param.name
                ? "is named '\(param.name)' by device \(registration.token), and '\(was.name)' by device "
                    + "\(first.token)"
                : "is \(Self.describe(param)) from device \(registration.token), and was "
                    + "\(Self.describe(was)) from device \(first.token)"
            record(
                Note(
                    rule: .paramDrift, subject: "\(registration.app):\(param.name.lowercased())", severity: .warning,
                    title: "The param '\(was.name)' changes \(was.name != param.name ? "letter case" : "type")",
                    message:
                        "In application \(registration.app), the additional param '\(was.name)' \(drift). "
                        + "Campaign maps each param name to one field of the subscription schema, with one type.",
                    fix:
                        "Send each param under one name, with one type, from every build and every code path "
                        + "(registerDevice's additionalParameters on the AEP extension, the params dictionary of "
                        + "the legacy SDK's registration): convert the value before passing it.",
                    app: registration.app, platform: registration.platform, token: registration.token,
                    at: registration.at, requestId: registration.requestId), &changes)
        }
    }

    /// Integers and decimals are both numbers: `3.0` may arrive as `3`.
    private static func kindGroup(_ kind: AdditionalParam.Kind) -> AdditionalParam.Kind {
        kind == .decimal ? .integer : kind
    }

    private static func describe(_ param: AdditionalParam) -> String {
        let article = param.kind == .integer ? "an" : "a"
        return "\(article) \(param.kind.rawValue) (\(param.kind == .string ? "\"\(param.value)\"" : param.value))"
    }

    // MARK: - user-key-missing

    /// Changes the application's userKey counts (one lookup), then has `user-key-missing` follow them.
    private mutating func recount(
        _ app: String, by registration: CheckObservation.Registration?, _ changes: inout [CheckChange],
        _ change: (inout UserKeyCounts) -> Void
    ) {
        let (before, now) = applications[app, default: ApplicationState()].userKeys.apply(change)
        userKeys(app, before: before, now: now, by: registration, &changes)
    }

    /// Whether the application's devices disagree on having a userKey, now that their counts went from
    /// `before` to `now`; `registration` is the one that just came (nil: a device was forgotten). The finding
    /// exists only while they disagree (each change of the counts comes here), so counts that agreed before
    /// and agree now have nothing to clear, and a finding's words change only when the counts do. It appears
    /// with the registration that made them disagree, with or without a userKey (the first registration
    /// usually comes before the login, without one, and the keyed ones after it).
    private mutating func userKeys(
        _ app: String, before: UserKeyCounts, now: UserKeyCounts, by registration: CheckObservation.Registration?,
        _ changes: inout [CheckChange]
    ) {
        let key = FindingKey(rule: .userKeyMissing, subject: app)
        guard now.disagree else {
            if before.disagree { clear(key, &changes) }
            return
        }
        let withoutUserKey = registration.flatMap { $0.userKey.isEmpty ? $0 : nil }
        guard let registration, withoutUserKey != nil || !before.disagree else {
            // A device gained its userKey, or was forgotten: only the numbers change.
            guard now != before else { return }
            changed(key) { finding in
                finding.count = now.without
                finding.message = { Self.userKeysMissing(app, now) }
            }
            return
        }
        // The device named is one without a userKey: this one, or the latest to come so.
        let named = withoutUserKey.map { ($0.token, $0.platform) } ?? applications[app]?.lastWithoutUserKey
        record(
            Note(
                rule: .userKeyMissing, subject: app, severity: .info,
                title: "Some devices register without a userKey", message: Self.userKeysMissing(app, now),
                fix:
                    "Register again once the user is known (after login), with the same token and the userKey: "
                    + "registerDevice(token, userKey, params) (AEP extension), the registration call's userKey "
                    + "(legacy SDK).",
                app: app, platform: named?.1 ?? registration.platform, token: named?.0, at: registration.at,
                requestId: registration.requestId, count: now.without), &changes)
    }

    private static func userKeysMissing(_ app: String, _ counts: UserKeyCounts) -> String {
        let (with, without) = (counts.with, counts.without)
        return "In application \(app), \(without) device\(without == 1 ? "" : "s") registered without a userKey, "
            + "while \(with) other\(with == 1 ? "" : "s") carr\(with == 1 ? "ies" : "y") one. Campaign links a "
            + "device to its recipient by the userKey; without it the device gets no targeted push."
    }

    // MARK: - registration-storm

    private mutating func storm(
        _ registration: CheckObservation.Registration, _ identical: Int, _ changes: inout [CheckChange]
    ) {
        let window = Self.seconds(settings.stormWindow)
        record(
            Note(
                rule: .registrationStorm, subject: "\(registration.app):\(registration.token)", severity: .info,
                title: "The same registration, again and again",
                message:
                    "Device \(registration.token) of application \(registration.app) registered the same data "
                    + "\(identical) times within \(window). The AEP "
                    + "extension sends an identical registration only once (it keeps a hash of the last one); the "
                    + "legacy SDK registers once per start of the app.",
                fix:
                    "Register from one place: at start-up (the APNs token callback on iOS, the current FCM token "
                    + "on Android) and in onNewToken, not from a screen or a loop that runs again and again.",
                app: registration.app, platform: registration.platform, token: registration.token,
                at: registration.at, requestId: registration.requestId), &changes)
    }

    // MARK: - registration-refused

    /// How the findings group the causes of refused registrations (docs/product.md §3.1).
    enum Refusal: String {
        case unknownKey = "unknown-key"
        case wrongPlatform = "wrong-platform"
        case missingKey = "missing-key"
        case missingToken = "missing-token"
        case disabled
        case contentType = "content-type"
        case method
        case malformed

        init(_ cause: RegistrationError) {
            switch cause {
            case .unknownIntegrationKey: self = .unknownKey
            // Both are answered 403, and grouped as they always were.
            case .disabled, .fromPage: self = .disabled
            case .unsupportedContentType: self = .contentType
            case .methodNotAllowed: self = .method
            case .missingIntegrationKey: self = .missingKey
            case .missingRegistrationToken: self = .missingToken
            case .wrongPlatform: self = .wrongPlatform
            case .malformed, .tooLong, .tooManyParams, .controlCharacter: self = .malformed
            }
        }
    }

    mutating func refused(_ refusal: CheckObservation.RefusedRegistration, _ changes: inout [CheckChange]) {
        let kind = Refusal(refusal.cause)
        let path = refusal.platform == .ios ? "registerIOS.jssp" : "registerAndroid.jssp"
        let key = refusal.app ?? ""
        let keySetting =
            "campaignclassic.\(refusal.platform.rawValue).integrationKey (AEP extension) or setIntegrationKey "
            + "(legacy SDK)"
        // What the app was told, cut as a log line is.
        let told = ClientText.capped(refusal.cause.reason)
        let what: String
        var fix: String
        switch kind {
        case .unknownKey:
            let nearest = Self.nearest(to: key, among: refusal.knownKeys)
            what =
                "named the integration key '\(key)', which this server does not know"
                + (nearest.map { " (the nearest known key is '\($0.key)', of \($0.platform.withArticle) application)" }
                    ?? "")
            fix =
                nearest.map { "Set the app's integration key to '\($0.key)' if that is the one meant: \(keySetting)" }
                ?? "Set the app's integration key in \(keySetting)"
            fix += "; or make this server accept '\(key)': start it with --app \(refusal.platform.rawValue):\(key) "
            fix += "or POST /_mock/apps."
        case .wrongPlatform:
            what = "named the key '\(key)' of the other platform's application (\(told))"
            fix = "Give each build its own platform's integration key: \(keySetting)."
        case .missingKey:
            what = "named no integration key (mobileAppUuid)"
            fix = "Set the integration key before registering: \(keySetting)."
        case .missingToken:
            what = "sent no registrationToken"
            fix =
                "Register only once the token is known: in the APNs token callback "
                + "(didRegisterForRemoteNotificationsWithDeviceToken) on iOS, with FCM's token on Android."
        case .disabled:
            what = "named a disabled application (\(told))"
            fix = "Enable the application (PUT /_mock/apps/\(key) {\"enabled\": true}) or use another key."
        case .contentType, .method, .malformed:
            what = "were malformed: \(told)"
            fix =
                "Register through the SDK's own call (registerDevice on the AEP extension, the legacy SDK's "
                + "registration) rather than a hand-made request; it sends the form docs/protocol.md §3 describes."
        }
        let subject = "\(refusal.platform.rawValue):\(kind.rawValue)" + (kind == .unknownKey ? ":\(key)" : "")
        let count = (findings[FindingKey(rule: .registrationRefused, subject: subject)]?.count ?? 0) + 1
        let advice = fix
        record(
            Note(
                rule: .registrationRefused, subject: subject, severity: .error,
                title: "Registrations refused: " + kind.rawValue.replacing("-", with: " "),
                message: "\(count) registration\(count == 1 ? "" : "s") to \(path) \(what) (\(refusal.status)).",
                fix: advice, app: refusal.app, platform: refusal.platform, at: refusal.at,
                requestId: refusal.requestId), &changes)
    }

    /// The known key nearest to `key` by edit distance, when it is near enough to be a typo or a mix-up:
    /// at most half of the longer key's letters differ.
    static func nearest(to key: String, among known: [String: Platform]) -> (key: String, platform: Platform)? {
        let scored = known.map { (key: $0.key, platform: $0.value, distance: editDistance(key, $0.key)) }
        guard
            let best = scored.min(by: { ($0.distance, $0.key) < ($1.distance, $1.key) }),
            best.distance * 2 <= max(key.count, best.key.count)
        else { return nil }
        return (best.key, best.platform)
    }

    /// Levenshtein distance, over characters (keys are short; longer ones are cut to 256).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.prefix(256))
        let b = Array(b.prefix(256))
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    // MARK: - fault-active

    mutating func faultFailed(_ failure: CheckObservation.FaultFailure, _ changes: inout [CheckChange]) {
        if failure.endpoint == .tracking { lastTrackingFault = failure.at }
        let count = (findings[FindingKey(rule: .faultActive, subject: failure.ruleId)]?.count ?? 0) + 1
        let answer = failure.status == 0 ? "the connection was closed unanswered" : "answered \(failure.status)"
        record(
            Note(
                rule: .faultActive, subject: failure.ruleId, severity: .info,
                title: "Requests fail because fault rule \(failure.ruleId) is set",
                message:
                    "\(count) request\(count == 1 ? "" : "s") failed because the fault rule \(failure.ruleId) fired; "
                    + "the latest to \(failure.endpoint.rawValue)"
                    + (failure.app.map { " (application \($0))" } ?? "") + ": \(answer). "
                    + "The failure was injected; the app did nothing wrong.",
                fix:
                    "Remove the rule when the test is done: DELETE /_mock/faults/\(failure.ruleId), or "
                    + "DELETE /_mock/faults for all.",
                app: failure.app, at: failure.at, requestId: failure.requestId), &changes)
    }
}
