/// Registration tokens shaped as the services issue them, for tests that stand for a real device.
public enum DeviceTokens {
    /// An APNs device token: 32 bytes, 64 hex digits (a shorter one gets `BadDeviceToken` from Apple).
    public static let apns = "6e65772d6170706c652d746f6b656e2d6578616d706c652d33322d6279746573"
}
