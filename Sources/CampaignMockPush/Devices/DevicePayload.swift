package import CampaignMockModel
package import CampaignMockStorage

/// What a composed message becomes on a device of this machine, for the one-click pushes: the `.apns` file
/// `xcrun simctl push` reads, or the broadcast an emulator's shell runs to hand the app its FCM data as
/// Firebase would. The app is the one the message was composed for (a bundle id, a package), else its
/// application's.
package enum DevicePayload {
    /// An iOS message for `xcrun simctl push DEVICE BUNDLE FILE`.
    package struct SimulatorFile: Sendable, Equatable {
        package var bundleID: String
        /// `campaign-mock-1000001.apns`.
        package var name: String
        /// The payload, with `Simulator Target Bundle`.
        package var text: String
    }

    /// The `.apns` file of an iOS message.
    ///
    /// - Throws: ``DevicePayloadError`` when no bundle id is known or the message has no APNs payload; the
    ///   store's error when the application cannot be read.
    package static func simulatorFile(of message: ComposedMessage, store: Store) throws -> SimulatorFile {
        guard let bundleID = try message.bundleId ?? store.application(key: message.app)?.application.bundleId else {
            throw DevicePayloadError(
                "no bundle id for \(message.app): set the application's bundleId (PUT /_mock/apps/\(message.app)) "
                    + "or compose the push with one")
        }
        guard let payload = message.apns else { throw DevicePayloadError("the message has no APNs payload") }
        return SimulatorFile(
            bundleID: bundleID, name: PushComposer.apnsFileName(messageID: message.messageId),
            text: PushComposer.apnsFile(payload, bundleID: bundleID))
    }

    /// The line `adb shell` runs for an Android message: its FCM data's text fields as the broadcast's extras.
    ///
    /// - Throws: ``DevicePayloadError`` when no package name is known or the message has no FCM data; the
    ///   store's error when the application cannot be read.
    package static func emulatorCommand(of message: ComposedMessage, store: Store) throws -> String {
        guard let package = try message.packageName ?? store.application(key: message.app)?.application.packageName
        else {
            throw DevicePayloadError(
                "no package name for \(message.app): set the application's packageName "
                    + "(PUT /_mock/apps/\(message.app)) or compose the push with androidPackage")
        }
        guard case .object(let fcm)? = message.fcm, case .object(let wrapped)? = fcm["message"],
            case .object(let fields)? = wrapped["data"]
        else { throw DevicePayloadError("the message has no FCM data") }
        let data = fields.compactMapValues { value -> String? in
            if case .string(let text) = value { return text }
            return nil
        }
        return PushComposer.broadcast(package: package, data: data)
    }
}

/// A composed message that cannot go to a simulator or an emulator as it is: what it lacks, and how to
/// give it.
package struct DevicePayloadError: Error, Equatable {
    package let message: String

    init(_ message: String) {
        self.message = message
    }
}
