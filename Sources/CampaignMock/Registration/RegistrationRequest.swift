/// A registration as the SDK sent it (docs/protocol.md §3.2), decoded and checked.
package struct RegistrationRequest: Sendable, Equatable {
    package var registrationToken: String
    package var integrationKey: String
    /// Empty when the app has no user key (`userKey=`).
    package var userKey: String
    package var device: DeviceFields
    package var params: [AdditionalParam]
}

/// The device and OS fields of a registration; all optional (iOS sends no `deviceImei`).
package struct DeviceFields: Sendable, Equatable, Codable {
    package var deviceImei: String?
    package var deviceName: String?
    package var deviceModel: String?
    package var deviceBrand: String?
    package var deviceManufacturer: String?
    package var osName: String?
    package var osVersion: String?
    package var osLanguage: String?

    package init(
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

extension RegistrationRequest {
    /// Reads the form fields. The integration key and token are checked by the endpoint, in the order
    /// of docs/product.md §3.1, so they may be empty here.
    init(form: FormBody) throws(RegistrationError) {
        registrationToken = form["registrationToken"] ?? ""
        integrationKey = form["mobileAppUuid"] ?? ""
        userKey = form["userKey"] ?? ""
        device = DeviceFields(
            deviceImei: form["deviceImei"], deviceName: form["deviceName"], deviceModel: form["deviceModel"],
            deviceBrand: form["deviceBrand"], deviceManufacturer: form["deviceManufacturer"], osName: form["osName"],
            osVersion: form["osVersion"], osLanguage: form["osLanguage"])
        params = []
    }
}
