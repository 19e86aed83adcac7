#if canImport(Glibc)
    import CLinux
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A named OS thread running one closure; the event loops and the store's writer each own one.
package final class SystemThread: Sendable {
    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    #if canImport(Glibc)
        private let thread: pthread_t
    #elseif canImport(Darwin)
        nonisolated(unsafe) private let thread: pthread_t
    #endif

    /// Starts a thread named `name` running `run`.
    package init(name: String, run: @escaping @Sendable () -> Void) {
        let body = Unmanaged.passRetained(Body(name: name, run: run)).toOpaque()
        #if canImport(Glibc)
            var handle = pthread_t()
        #elseif canImport(Darwin)
            var handle: pthread_t?
        #endif
        // 8 MiB of stack on every system, as Linux gives by default: macOS gives a new thread 512 KiB, which
        // deeply nested JSON in an admin request (read on a loop thread) would overflow.
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        _ = pthread_attr_setstacksize(&attributes, 8 << 20)
        let result = pthread_create(
            &handle, &attributes,
            { argument in
                // Linux passes an optional pointer, Darwin a non-optional one: made optional, the same
                // line compiles on both.
                let body = Unmanaged<Body>.fromOpaque((argument as UnsafeMutableRawPointer?)!).takeRetainedValue()
                #if canImport(Glibc)
                    _ = CLinux_pthread_setname_np(pthread_self(), String(body.name.prefix(15)))
                #elseif canImport(Darwin)
                    _ = pthread_setname_np(String(body.name.prefix(63)))
                #endif
                body.run()
                return nil
            }, body)
        precondition(result == 0, "pthread_create failed: \(result)")
        #if canImport(Glibc)
            thread = handle
        #elseif canImport(Darwin)
            thread = handle!
        #endif
    }

    /// The calling thread's identity, to compare with one taken earlier.
    package static var currentID: UInt {
        #if canImport(Glibc)
            UInt(pthread_self())
        #elseif canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #endif
    }

    /// Waits for the thread to finish.
    package func join() {
        _ = pthread_join(thread, nil)
    }
}
