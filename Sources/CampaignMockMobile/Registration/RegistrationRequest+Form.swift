import CampaignMockModel

extension RegistrationRequest {
    /// Reads the form fields. The integration key and token are checked by the endpoint, in the order
    /// of docs/product.md §3.1, so they may be empty here.
    init(form: FormBody) throws(RegistrationError) {
        self.init(
            registrationToken: form[.registrationToken] ?? "", integrationKey: form[.mobileAppUuid] ?? "",
            userKey: form[.userKey] ?? "",
            device: DeviceFields(
                deviceImei: form[.deviceImei], deviceName: form[.deviceName], deviceModel: form[.deviceModel],
                deviceBrand: form[.deviceBrand], deviceManufacturer: form[.deviceManufacturer],
                osName: form[.osName], osVersion: form[.osVersion], osLanguage: form[.osLanguage]),
            params: [])
    }
}
