package campaignmock.client;

import java.util.Collections;
import java.util.List;
import java.util.Map;

/** An item of the admin API as JSON, with typed getters for what tests read most; {@link #json()} has it all. */
public class Item {
    private final Map<String, Object> json;

    @SuppressWarnings("unchecked")
    Item(Object json) {
        this.json = json instanceof Map ? (Map<String, Object>) json : Collections.emptyMap();
    }

    /** The whole item, as the admin API sent it. */
    public Map<String, Object> json() {
        return json;
    }

    protected String string(String key) {
        Object value = json.get(key);
        return value == null ? null : String.valueOf(value);
    }

    protected long number(String key) {
        Object value = json.get(key);
        return value instanceof Number ? ((Number) value).longValue() : 0;
    }

    @SuppressWarnings("unchecked")
    protected Map<String, Object> object(String key) {
        Object value = json.get(key);
        return value instanceof Map ? (Map<String, Object>) value : Collections.emptyMap();
    }

    @SuppressWarnings("unchecked")
    protected List<Object> list(String key) {
        Object value = json.get(key);
        return value instanceof List ? (List<Object>) value : Collections.emptyList();
    }

    /** The value of the param called {@code name} in the item's {@code params}, as sent; null when none. */
    public String param(String name) {
        for (Object param : list("params")) {
            Map<?, ?> entry = (Map<?, ?>) param;
            if (name.equals(entry.get("name"))) return String.valueOf(entry.get("value"));
        }
        return null;
    }

    @Override
    public String toString() {
        return Json.write(json);
    }
}
