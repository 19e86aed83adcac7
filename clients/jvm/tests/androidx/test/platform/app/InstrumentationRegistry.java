package androidx.test.platform.app;

import android.os.Bundle;

/**
 * A JVM stand-in for AndroidX Test's registry, with its class name and {@code getArguments()} signature, so
 * the tests exercise the client's reflective read of instrumentation arguments. Test code only: the client
 * has no Android dependency.
 */
public final class InstrumentationRegistry {
    /** What {@code am instrument -e NAME VALUE} passed; null as outside an instrumentation. */
    public static Bundle arguments;

    private InstrumentationRegistry() {}

    public static Bundle getArguments() {
        if (arguments == null) throw new IllegalStateException("No instrumentation registered! Must run under a registering instrumentation.");
        return arguments;
    }
}
