// The server is built and tested with Swift 6.2 (Xcode 26) only; the manifest is read by Swift 6.0 so that an
// app can add the client (docs/swift-client.md), which never compiles this target. An older compiler stops
// here with the reason rather than with whatever else it would not understand.
#if !compiler(>=6.2)
    #error("the campaign-mock server needs Swift 6.2 or newer (Xcode 26 on macOS); the client alone needs 6.0")
#endif
