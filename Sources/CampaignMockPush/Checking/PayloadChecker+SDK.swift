import CampaignMockModel
import CampaignMockStorage

extension PayloadChecker {
    /// The keys a notification's image is read from, as the composer writes them (docs/push.md, "Images"): on iOS
    /// by the app's own service extension (the Campaign extension reads no media key), on Android by the
    /// Campaign extension.
    static func mediaKeys(_ platform: Platform) -> [String] {
        platform == .ios ? ["mediaUrl"] : ["adb_image", "mediaUrl"]
    }

    /// `_mId`, `_dId` and the media and link keys, as the SDK of `platform` reads them (docs/protocol.md §4, §6):
    /// `fields` is the payload's top level on iOS and the FCM data on Android, at `place`.
    static func checkSDKKeys(
        _ fields: [String: JSONValue], at place: String, platform: Platform, into findings: inout FindingList
    ) {
        let untracked = "the SDK would not track this push"
        let androidShows = platform == .android ? " and the Android extension shows no notification" : ""
        let messageIDPath = payloadPath(place, "_mId")
        switch fields["_mId"] {
        case nil:
            findings.error(
                .sdkMessageIDMissing, at: messageIDPath,
                "no `_mId`: \(untracked) (no receive or open hit)\(androidShows)")
        case .string(let id)?:
            if !TrackingID.isUUID(id) && Int64(id) == nil {
                findings.error(
                    .sdkMessageIDFormat, at: messageIDPath,
                    "`_mId` '\(id)' is neither a decimal nor a UUID: \(untracked) (docs/protocol.md §4.2)")
            } else if platform == .ios, let value = Int64(id), value >= 1 << 32 {
                findings.info(
                    .sdkMessageIDLow32Bits, at: messageIDPath,
                    "`_mId` is 2^32 or more: the iOS SDK may send only its low 32 bits; Campaign links either form")
            }
        case let other?:
            findings.error(
                .sdkMessageIDType, at: messageIDPath,
                "`_mId` must be a string, it is \(other.kind): \(untracked)")
        }
        let deliveryIDPath = payloadPath(place, "_dId")
        switch fields["_dId"] {
        case nil:
            findings.error(
                .sdkDeliveryIDMissing, at: deliveryIDPath,
                "no `_dId`: \(untracked) (no receive or open hit)\(androidShows)")
        case .string(let id)? where id.isEmpty || id.contains(where: { !isURLSafe($0) }):
            findings.error(
                .sdkDeliveryIDFormat, at: deliveryIDPath,
                id.isEmpty
                    ? "`_dId` is empty: \(untracked)"
                    : "`_dId` '\(id)' has characters the tracking URL cannot carry (the SDK copies it unencoded "
                        + "into `/r/?id=h…,<_dId>,1`): \(untracked) as sent")
        case .string(let id)?:
            if !id.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) {
                findings.warning(
                    .sdkDeliveryIDHex, at: deliveryIDPath,
                    "`_dId` '\(id)' is not lowercase hex, the form Campaign's delivery ids take in tracking ids: "
                        + "the SDK sends it as it is, but Campaign would not have issued it")
            }
        case let other?:
            findings.error(
                .sdkDeliveryIDType, at: deliveryIDPath,
                "`_dId` must be a string, it is \(other.kind): \(untracked)")
        }
        for key in mediaKeys(platform) {
            guard let value = fields[key], !isWebURL(value.string ?? "") else { continue }
            findings.warning(
                .sdkMediaURL, at: payloadPath(place, key),
                "`\(key)` is not an http or https URL: the notification shows no image")
        }
        if platform == .android, let link = fields["adb_uri"], !(link.string ?? "").contains(":") {
            findings.warning(
                .sdkLinkURI, at: payloadPath(place, "adb_uri"),
                "`adb_uri` is not a URI with a scheme (`app://sale`, `https://…`): a tap opens the app's start screen")
        }
    }

    /// A character the SDK can put in the tracking URL's query as it is.
    private static func isURLSafe(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "-._~".contains(character))
    }

    private static func isWebURL(_ text: String) -> Bool {
        ["http://", "https://"].contains { text.hasPrefix($0) && text.count > $0.count }
    }
}
