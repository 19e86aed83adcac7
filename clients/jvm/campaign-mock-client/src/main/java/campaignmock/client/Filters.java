package campaignmock.client;

import java.util.LinkedHashMap;
import java.util.Map;

/** Filters for waits and lists: {@code Filters.of("app", "KEY", "userKey", "jane@example.com")}; null values are left out. */
public final class Filters {
    private Filters() {}

    public static Map<String, String> of(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) throw new IllegalArgumentException("give names and values in pairs");
        Map<String, String> filters = new LinkedHashMap<>();
        for (int index = 0; index < namesAndValues.length; index += 2) {
            if (namesAndValues[index + 1] != null) filters.put(namesAndValues[index], namesAndValues[index + 1]);
        }
        return filters;
    }
}
