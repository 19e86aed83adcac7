/// Taking a composed push out of the mock: to a real phone through APNs or FCM, or to a simulator or
/// emulator on this machine (docs/push-on-device.md).
package enum Delivery {}
