/// The schema documents in `Schemas/`, as SwiftPM embeds them (`PackageResources`). A document
/// added there must be listed here; a test checks that every file is.
enum BuiltInSchemas {
    static let documents: [[UInt8]] = [
        PackageResources.xtk_session_xml, PackageResources.xtk_persist_xml, PackageResources.xtk_queryDef_xml,
        PackageResources.xtk_option_xml, PackageResources.xtk_enumValue_xml, PackageResources.xtk_builder_xml,
        PackageResources.nms_subscription_xml, PackageResources.nms_rtEvent_xml, PackageResources.nms_recipient_xml,
        PackageResources.nms_service_xml, PackageResources.nms_mobileApp_xml,
        PackageResources.nms_appSubscriptionRcp_xml, PackageResources.nms_broadLogAppSubRcp_xml,
        PackageResources.nms_trackingLogAppSubRcp_xml, PackageResources.nms_deliveryMapping_xml,
        PackageResources.nms_extAccount_xml,
    ]
}
