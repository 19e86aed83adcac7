/// A registration as the SDK sent it (docs/protocol.md §3.2), decoded and checked.
package struct RegistrationRequest: Sendable, Equatable {
    package var registrationToken: String
    package var integrationKey: String
    /// Empty when the app has no user key (`userKey=`).
    package var userKey: String
    package var device: DeviceFields
    package var params: [AdditionalParam]

    package init(
        registrationToken: String, integrationKey: String, userKey: String, device: DeviceFields,
        params: [AdditionalParam]
    ) {
        self.registrationToken = registrationToken
        self.integrationKey = integrationKey
        self.userKey = userKey
        self.device = device
        self.params = params
    }
}

/// The device and OS fields of a registration; all optional (iOS sends no `deviceImei`).
public struct DeviceFields: Sendable, Equatable, Codable {
    public var deviceImei: String?
    public var deviceName: String?
    public var deviceModel: String?
    public var deviceBrand: String?
    public var deviceManufacturer: String?
    public var osName: String?
    public var osVersion: String?
    public var osLanguage: String?

    public init(
        deviceImei: String? = nil, deviceName: String? = nil, deviceModel: String? = nil, deviceBrand: String? = nil,
        deviceManufacturer: String? = nil, osName: String? = nil, osVersion: String? = nil, osLanguage: String? = nil
    ) {
        self.deviceImei = deviceImei
        self.deviceName = deviceName
        self.deviceModel = deviceModel
        self.deviceBrand = deviceBrand
        self.deviceManufacturer = deviceManufacturer
        self.osName = osName
        self.osVersion = osVersion
        self.osLanguage = osLanguage
    }
}
