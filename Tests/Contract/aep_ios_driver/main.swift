// An app's use of Adobe's AEP Campaign Classic extension, for Tests/Contract/test_aep_ios.py: one run of
// this program is one launch of the app. Its data (the extension's store: among it the hash of the last
// registration sent) lives in $CFFIXED_USER_HOME, so the same folder again is a relaunch of the same
// install and a new folder a fresh install.
//
// Environment: AEP_HOST (the mock's HTTPS host:port, no scheme), AEP_KEY (the integration key).
// Arguments, run in order; each prints one JSON line on standard output:
//   register:HEX-TOKEN:USERKEY:typed     registerDevice with params as Swift values (String, Int, Bool, Double)
//   register:HEX-TOKEN:USERKEY:JSON      registerDevice with params read by JSONSerialization
//   receive:JSON  click:JSON             trackNotificationReceive / trackNotificationClick with that userInfo
//   privacy:optedin  privacy:optedout    MobileCore.setPrivacyStatus
//   sleep:MILLISECONDS                   lets the extension's queued hits go out before the launch ends
import AEPCampaignClassic
import AEPCore
import AEPServices
import Foundation

let environment = ProcessInfo.processInfo.environment
guard let host = environment["AEP_HOST"], let key = environment["AEP_KEY"] else {
    FileHandle.standardError.write(Data("AEP_HOST and AEP_KEY must be set\n".utf8))
    exit(2)
}

/// Each registration's outcome, as the extension reports it (`registrationstatus`).
let statuses = DispatchSemaphore(value: 0)
let lastStatus = NSLock()
var status: Bool?

func say(_ fields: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
    fflush(stdout)
}

func hexData(_ hex: String) -> Data {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
        bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
        index = next
    }
    return Data(bytes)
}

func json(_ text: String) -> Any {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) ?? [:]
}

/// The privacy status as the configuration has it now.
func privacyStatus() -> PrivacyStatus? {
    let answered = DispatchSemaphore(value: 0)
    let box = NSLock()
    var status: PrivacyStatus?
    MobileCore.getPrivacyStatus { value in
        box.lock()
        status = value
        box.unlock()
        answered.signal()
    }
    guard answered.wait(timeout: .now() + 5) == .success else { return nil }
    box.lock()
    defer { box.unlock() }
    return status
}

/// The hash of the last registration sent, as the extension stored it.
func storedHash() -> Any? {
    ServiceProvider.shared.namedKeyValueService.get(
        collectionName: "com.adobe.module.campaignclassic", key: "ADOBEMOBILE_STOREDDEFAULTS_TOKENHASH")
}

/// Whether `condition` held within 10 s, looking every 20 ms.
func waitUntil(_ condition: () -> Bool) -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        usleep(20_000)
    }
    return false
}

MobileCore.setLogLevel(.error)
let registered = DispatchSemaphore(value: 0)
MobileCore.registerExtensions([CampaignClassic.self]) { registered.signal() }
registered.wait()
MobileCore.registerEventListener(type: EventType.campaign, source: EventSource.responseContent) { event in
    guard let value = event.data?["registrationstatus"] as? Bool else { return }
    lastStatus.lock()
    status = value
    lastStatus.unlock()
    statuses.signal()
}
MobileCore.updateConfigurationWith(configDict: [
    "campaignclassic.marketingServer": host,
    "campaignclassic.trackingServer": host,
    "campaignclassic.ios.integrationKey": key,
    "campaignclassic.timeout": 10,
    "global.privacy": "optedin",
])

for argument in CommandLine.arguments.dropFirst() {
    let parts = argument.split(separator: ":", maxSplits: 1).map(String.init)
    let verb = parts[0]
    let rest = parts.count > 1 ? parts[1] : ""
    switch verb {
    case "register":
        let fields = rest.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        let params: [String: Any] =
            fields[2] == "typed"
            ? ["plan": "gold", "points": 42, "vip": true, "ratio": 1.5]
            : (json(fields[2]) as? [String: Any] ?? [:])
        CampaignClassic.registerDevice(
            token: hexData(fields[0]), userKey: fields[1].isEmpty ? nil : fields[1], additionalParameters: params)
        let answered = statuses.wait(timeout: .now() + 20) == .success
        lastStatus.lock()
        let outcome = status
        lastStatus.unlock()
        say(["register": fields[0], "answered": answered, "registrationstatus": outcome ?? NSNull()])
    case "receive", "click":
        let userInfo = json(rest) as? [AnyHashable: Any] ?? [:]
        if verb == "receive" {
            CampaignClassic.trackNotificationReceive(withUserInfo: userInfo)
        } else {
            CampaignClassic.trackNotificationClick(withUserInfo: userInfo)
        }
        say([verb: true])
    case "privacy":
        let wanted: PrivacyStatus = rest == "optedout" ? .optedOut : .optedIn
        MobileCore.setPrivacyStatus(wanted)
        // Applied once the configuration says so, and, opted out, once the extension has deleted the hash of
        // the last registration (in its data store): events are handled in turn, on their own time.
        let applied = waitUntil { privacyStatus() == wanted && (wanted == .optedIn || storedHash() == nil) }
        say(["privacy": rest, "applied": applied])
    case "sleep":
        usleep(useconds_t((Int(rest) ?? 0) * 1000))
        say(["slept": Int(rest) ?? 0])
    default:
        FileHandle.standardError.write(Data("unknown command \(argument)\n".utf8))
        exit(2)
    }
}

// The data store writes on a queue of its own (the hash of the registration sent, among others): an app's
// process lives on and they land; this launch ends, so it waits for them with a read through the same
// queue, or the next launch would not find what this one stored.
_ = ServiceProvider.shared.namedKeyValueService.get(collectionName: "com.adobe.module.campaignclassic", key: "")
