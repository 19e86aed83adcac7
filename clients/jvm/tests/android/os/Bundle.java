package android.os;

import java.util.HashMap;
import java.util.Map;

/** A JVM stand-in for Android's {@code Bundle}, as far as instrumentation arguments go (test code only). */
public final class Bundle {
    private final Map<String, String> values = new HashMap<>();

    public void putString(String key, String value) {
        values.put(key, value);
    }

    public String getString(String key) {
        return values.get(key);
    }
}
