package campaignmock.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON the admin API speaks, read into maps, lists, strings, numbers (as {@code Double} or
 * {@code Long}), booleans and null, and written back from them. Small on purpose: the client has no
 * dependency beyond the JDK.
 */
public final class Json {
    private final String text;
    private int position;

    private Json(String text) {
        this.text = text;
    }

    /** Parses one JSON value; a malformed text is an {@link IllegalArgumentException} naming the offset. */
    public static Object parse(String text) {
        Json reader = new Json(text);
        reader.space();
        Object value = reader.value();
        reader.space();
        if (reader.position != text.length()) throw reader.error("unexpected text after the value");
        return value;
    }

    /** Writes maps, lists, strings, numbers, booleans and null as JSON. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String) {
            out.append('"');
            for (char c : ((String) value).toCharArray()) {
                switch (c) {
                    case '"': out.append("\\\""); break;
                    case '\\': out.append("\\\\"); break;
                    case '\n': out.append("\\n"); break;
                    case '\r': out.append("\\r"); break;
                    case '\t': out.append("\\t"); break;
                    default:
                        if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                        else out.append(c);
                }
            }
            out.append('"');
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                if (entry.getValue() == null) continue;
                if (!first) out.append(',');
                first = false;
                write(String.valueOf(entry.getKey()), out);
                out.append(':');
                write(entry.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof List) {
            out.append('[');
            boolean first = true;
            for (Object item : (List<?>) value) {
                if (!first) out.append(',');
                first = false;
                write(item, out);
            }
            out.append(']');
        } else {
            out.append(value);
        }
    }

    private Object value() {
        if (position >= text.length()) throw error("expected a value");
        char c = text.charAt(position);
        switch (c) {
            case '{': return object();
            case '[': return array();
            case '"': return string();
            case 't': return literal("true", Boolean.TRUE);
            case 'f': return literal("false", Boolean.FALSE);
            case 'n': return literal("null", null);
            default: return number();
        }
    }

    private Map<String, Object> object() {
        Map<String, Object> map = new LinkedHashMap<>();
        position++;
        space();
        if (peek('}')) return map;
        while (true) {
            space();
            String key = string();
            space();
            expect(':');
            space();
            map.put(key, value());
            space();
            if (peek('}')) return map;
            expect(',');
        }
    }

    private List<Object> array() {
        List<Object> list = new ArrayList<>();
        position++;
        space();
        if (peek(']')) return list;
        while (true) {
            space();
            list.add(value());
            space();
            if (peek(']')) return list;
            expect(',');
        }
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            if (position >= text.length()) throw error("a string without its end");
            char c = text.charAt(position++);
            if (c == '"') return out.toString();
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char escape = text.charAt(position++);
            switch (escape) {
                case 'n': out.append('\n'); break;
                case 't': out.append('\t'); break;
                case 'r': out.append('\r'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'u':
                    out.append((char) Integer.parseInt(text.substring(position, position + 4), 16));
                    position += 4;
                    break;
                default: out.append(escape);
            }
        }
    }

    private Object number() {
        int start = position;
        while (position < text.length() && "+-0123456789.eE".indexOf(text.charAt(position)) >= 0) position++;
        String digits = text.substring(start, position);
        if (digits.isEmpty()) throw error("expected a value");
        if (digits.contains(".") || digits.contains("e") || digits.contains("E")) return Double.parseDouble(digits);
        return Long.parseLong(digits);
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, position)) throw error("expected " + word);
        position += word.length();
        return value;
    }

    private boolean peek(char c) {
        if (position < text.length() && text.charAt(position) == c) {
            position++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!peek(c)) throw error("expected '" + c + "'");
    }

    private void space() {
        while (position < text.length() && Character.isWhitespace(text.charAt(position))) position++;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("not the JSON campaign-mock sends: " + what + " at offset " + position);
    }
}
