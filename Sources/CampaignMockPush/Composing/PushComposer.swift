package import CampaignMockModel
import CampaignMockSupport
import CampaignMockSystem

/// Builds the payloads of a push (docs/protocol.md §6): `_mId` and `_dId` always strings, free variables as
/// top-level keys (iOS) or data keys (Android). Each message carries its payload check (``PayloadChecker``).
package enum PushComposer {
    /// APNs refuses payloads over 4 KB.
    static let apnsLimit = PayloadChecker.sizeLimit

    /// The message for one device.
    ///
    /// - Throws: ``PushError`` when the APNs payload is over 4 KB.
    package static func message(
        _ request: PushRequest, device: (token: String, platform: Platform, app: String), messageID: String,
        deliveryID: String
    ) throws(PushError) -> ComposedMessage {
        let tracking = ComposedMessage.Tracking(
            receive: SDKTrackingEncoding.path(messageID, deliveryID: deliveryID, tag: 1, platform: device.platform),
            open: SDKTrackingEncoding.path(messageID, deliveryID: deliveryID, tag: 2, platform: device.platform))
        var message = ComposedMessage(
            registrationToken: device.token, platform: device.platform, app: device.app, messageId: messageID,
            deliveryId: deliveryID, tracking: tracking)
        switch device.platform {
        case .ios:
            let payload = apns(request, messageID: messageID, deliveryID: deliveryID)
            let size = JSONText.compact(payload).utf8.count
            guard size <= apnsLimit else {
                throw PushError("the APNs payload is \(size) bytes; APNs refuses more than \(apnsLimit)")
            }
            message.bundleId = request.bundleId
            message.apns = payload
            message.apnsFile = apnsFile(payload, bundleID: request.bundleId)
            message.simctl =
                "xcrun simctl push booted \(request.bundleId ?? "YOUR.BUNDLE.ID") \(apnsFileName(messageID: messageID))"
            message.check = PayloadChecker.apns(payload)
        case .android:
            let data = fcmData(request, messageID: messageID, deliveryID: deliveryID)
            let priority = request.androidPriority ?? .default(silent: request.silent == true)
            let fcm = JSONValue.object([
                "message": .object([
                    "token": .string(device.token), "data": .object(data.mapValues { .string($0) }),
                    "android": .object(["priority": .string(priority.rawValue)]),
                ])
            ])
            message.fcm = fcm
            message.check = PayloadChecker.fcm(fcm)
            message.packageName = request.androidPackage
            message.adb = adb(request, data: data)
        }
        return message
    }

    /// The `.apns` file `xcrun simctl push` reads: the payload, with `Simulator Target Bundle` when the
    /// bundle id is known.
    package static func apnsFile(_ payload: JSONValue, bundleID: String?) -> String {
        var file = payload
        if case .object(var fields) = file, let bundleID {
            fields["Simulator Target Bundle"] = .string(bundleID)
            file = .object(fields)
        }
        return JSONText.pretty(file)
    }

    /// `campaign-mock-1000001.apns`.
    package static func apnsFileName(messageID: String) -> String {
        "campaign-mock-\(messageID).apns"
    }

    /// `{"aps": {...}, "_mId": "...", "_dId": "...", variables...}`.
    static func apns(_ request: PushRequest, messageID: String, deliveryID: String) -> JSONValue {
        var aps: [String: JSONValue] = [:]
        if request.silent == true {
            aps["content-available"] = .number(1)
        } else {
            var alert: [String: JSONValue] = [:]
            if let title = request.title, !title.isEmpty { alert["title"] = .string(title) }
            if let body = request.body, !body.isEmpty { alert["body"] = .string(body) }
            aps["alert"] = .object(alert)
            aps["sound"] = .string(request.sound ?? "default")
            if let badge = request.badge { aps["badge"] = .number(Double(badge)) }
        }
        if let category = request.category { aps["category"] = .string(category) }
        if request.mutableContent == true || request.mediaUrl != nil { aps["mutable-content"] = .number(1) }
        var payload: [String: JSONValue] = [
            "aps": .object(aps), "_mId": .string(messageID), "_dId": .string(deliveryID),
        ]
        if let media = request.mediaUrl { payload["mediaUrl"] = .string(media) }
        for (key, value) in request.variables ?? [:] { payload[key] = .string(value) }
        return .object(payload)
    }

    /// FCM data: the legacy keys the SDKs read (`_msg`, `title`), the AEP ones, ids, variables.
    static func fcmData(_ request: PushRequest, messageID: String, deliveryID: String) -> [String: String] {
        var data = ["_mId": messageID, "_dId": deliveryID]
        if request.silent != true {
            if let title = request.title, !title.isEmpty {
                data["title"] = title
                data["adb_title"] = title
            }
            if let body = request.body, !body.isEmpty {
                data["_msg"] = body
                data["adb_body"] = body
            }
            if let sound = request.sound { data["adb_sound"] = sound }
            if let badge = request.badge { data["adb_n_count"] = String(badge) }
        }
        if let media = request.mediaUrl {
            data["adb_image"] = media
            data["mediaUrl"] = media
        }
        for (key, value) in request.variables ?? [:] { data[key] = value }
        return data
    }

    /// Lines to paste: deliver the data message to a debug build on an emulator, or just show a notification.
    /// `adb shell` joins its arguments with spaces and the device's shell parses the result again, so each
    /// line is quoted for both shells: every word of the device's command for the device's shell, and the
    /// whole command as one word for this machine's.
    static func adb(_ request: PushRequest, data: [String: String]) -> [String] {
        var commands = [broadcast(package: request.androidPackage ?? "YOUR.PACKAGE", data: data)]
        if request.silent != true {
            commands.append(
                ShellWords.line([
                    "cmd", "notification", "post", "-t", request.title ?? "", "campaign-mock-" + (data["_mId"] ?? ""),
                    request.body ?? "",
                ]))
        }
        return commands.map { "adb shell " + ShellWords.quote($0) }
    }

    /// The command an emulator's shell runs to hand the FCM data message to the app as FCM would
    /// (`com.google.android.c2dm.intent.RECEIVE` with every key as an extra), one line for `adb shell`:
    /// every word quoted for the device's shell, which parses the line once more.
    package static func broadcast(package: String, data: [String: String]) -> String {
        let extras = data.keys.sorted().flatMap { key in ["--es", key, data[key]!] }
        return ShellWords.line(
            ["am", "broadcast", "-a", "com.google.android.c2dm.intent.RECEIVE", "-p", package] + extras)
    }
}
