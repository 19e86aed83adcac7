package campaignmock.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The items the client returns. */
public final class Items {
    private Items() {}

    /** A registration the SDK sent, as a wait returns it (with its device fields and params). */
    public static final class Registration extends Item {
        Registration(Object json) { super(json); }
        public String registrationToken() { return string("registrationToken"); }
        public String integrationKey() { return string("integrationKey"); }
        public String platform() { return string("platform"); }
        public String userKey() { return string("userKey"); }
        /** {@code new}, {@code userKey}, {@code device}, {@code params} or {@code unchanged}. */
        @SuppressWarnings("unchecked")
        public List<String> changes() { return (List<String>) (List<?>) list("changes"); }
        /** A device field as sent ({@code deviceModel}, {@code osVersion}, …). */
        public String device(String field) { Object value = object("device").get(field); return value == null ? null : String.valueOf(value); }
    }

    /** A registered device. */
    public static final class Device extends Item {
        Device(Object json) { super(json); }
        public String registrationToken() { return string("registrationToken"); }
        public String userKey() { return string("userKey"); }
        public String integrationKey() { return String.valueOf(object("application").get("integrationKey")); }
        public String platform() { return String.valueOf(object("application").get("platform")); }
        public String device(String field) { Object value = object("device").get(field); return value == null ? null : String.valueOf(value); }
        public long registrationCount() { return number("registrationCount"); }
        /** Whether its token is trusted for real sends on the server's machine (explicit trust only). */
        public boolean trusted() { return Boolean.TRUE.equals(json().get("trusted")); }
    }

    /** A receive or open hit. */
    public static final class TrackingEvent extends Item {
        TrackingEvent(Object json) { super(json); }
        public long id() { return number("id"); }
        /** {@code receive} or {@code open}. */
        public String type() { return string("type"); }
        public String rawId() { return string("rawId"); }
        public String deliveryId() { return string("deliveryId"); }
        /** The {@code _mId} of the push composed on the mock this hit belongs to; null when none. */
        public String linkedMessageId() { Object value = object("linked").get("messageId"); return value == null ? null : String.valueOf(value); }
        public String linkedToken() { Object value = object("linked").get("registrationToken"); return value == null ? null : String.valueOf(value); }
    }

    /** A journaled request and what it was answered. */
    public static final class JournaledRequest extends Item {
        JournaledRequest(Object json) { super(json); }
        public long id() { return number("id"); }
        public String method() { return string("method"); }
        public String target() { return string("target"); }
        public String endpoint() { return string("endpoint"); }
        public int status() { return (int) number("status"); }
        public String reason() { return string("reason"); }
        public String body() { return string("body"); }
        public String responseBody() { Object value = object("response").get("body"); return value == null ? null : String.valueOf(value); }
    }

    /** A composed push: one message per device. */
    public static final class ComposedPush extends Item {
        ComposedPush(Object json) { super(json); }
        public long id() { return number("id"); }
        public String deliveryId() { return string("deliveryId"); }
        public List<Message> messages() {
            List<Message> messages = new ArrayList<>();
            for (Object message : list("messages")) messages.add(new Message(message));
            return messages;
        }
    }

    /** The push for one device: its payloads and the tracking paths its SDK will call. */
    public static final class Message extends Item {
        Message(Object json) { super(json); }
        public String registrationToken() { return string("registrationToken"); }
        public String platform() { return string("platform"); }
        public String messageId() { return string("messageId"); }
        public String deliveryId() { return string("deliveryId"); }
        /** {@code /r/?id=…,1}: what the SDK calls when the notification arrives. */
        public String receivePath() { return String.valueOf(object("tracking").get("receive")); }
        /** {@code /r/?id=…,2}: when it is opened. */
        public String openPath() { return String.valueOf(object("tracking").get("open")); }
        public Map<String, Object> apns() { return object("apns"); }
        public Map<String, Object> fcm() { return object("fcm"); }
    }

    /** A fault rule with how often it matched and fired. */
    public static final class FaultStatus extends Item {
        FaultStatus(Object json) { super(json); }
        public String id() { return String.valueOf(object("rule").get("id")); }
        public long matched() { return number("matched"); }
        public long fired() { return number("fired"); }
    }

    /** A finding of the integration checks (docs/checks.md): what the app's traffic shows it gets wrong, and what to change. */
    public static final class Finding extends Item {
        Finding(Object json) { super(json); }
        /** Stable while the finding lasts. */
        public String id() { return string("id"); }
        /** The rule's id, {@code open-without-receive}, {@code registration-refused}, … */
        public String rule() { return string("rule"); }
        /** {@code error}, {@code warning} or {@code info}. */
        public String severity() { return string("severity"); }
        public String title() { return string("title"); }
        public String message() { return string("message"); }
        /** What to change in the app. */
        public String fix() { return string("fix"); }
        /** The section of docs/checks.md about the rule. */
        public String doc() { return string("doc"); }
        /** The integration key, the platform, the device's token and the {@code _mId} it concerns; null where none applies. */
        public String app() { return string("app"); }
        public String platform() { return string("platform"); }
        public String registrationToken() { return string("registrationToken"); }
        public String messageId() { return string("messageId"); }
        /** How many times it was seen. */
        public long count() { return number("count"); }
        public String firstSeen() { return string("firstSeen"); }
        public String lastSeen() { return string("lastSeen"); }
        /** The journaled requests it rests on ({@code GET /_mock/requests/{id}}). */
        public List<Long> requestIds() {
            List<Long> ids = new ArrayList<>();
            Object listed = object("evidence").get("requestIds");
            if (listed instanceof List) for (Object id : (List<?>) listed) if (id instanceof Number) ids.add(((Number) id).longValue());
            return ids;
        }

        /** The finding in words, as a failed test shows it: severity, rule and title, what it means, what to change, where. */
        public String describe() {
            // What a device chose (a token, a user key in the message) goes into CI logs: escaped.
            StringBuilder text = new StringBuilder("- " + printable(severity()) + " " + printable(rule()) + ": "
                    + printable(title()));
            if (message() != null) text.append("\n  ").append(printable(message()));
            if (fix() != null) text.append("\n  Fix: ").append(printable(fix()));
            List<String> where = new ArrayList<>();
            if (app() != null) where.add("app " + printable(app()));
            if (registrationToken() != null) where.add("token " + printable(registrationToken()));
            if (messageId() != null) where.add("_mId " + printable(messageId()));
            if (count() > 1) where.add(count() + " times");
            if (doc() != null) where.add(doc());
            if (!where.isEmpty()) text.append("\n  (").append(join(where)).append(")");
            return text.toString();
        }

        /** {@code text} with every C0 and C1 control and DEL as an escape ({@code \\n}, {@code \\u001b}): shown, not acted on. */
        static String printable(String text) {
            if (text == null) return null;
            StringBuilder result = null;
            for (int index = 0; index < text.length(); index++) {
                char c = text.charAt(index);
                boolean control = c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0);
                if (control && result == null) result = new StringBuilder(text.substring(0, index));
                if (result == null) continue;
                if (!control) result.append(c);
                else if (c == '\n') result.append("\\n");
                else if (c == '\r') result.append("\\r");
                else if (c == '\t') result.append("\\t");
                else result.append(String.format("\\u%04x", (int) c));
            }
            return result == null ? text : result.toString();
        }

        // String.join needs Android API 26 (android-api-denylist.txt).
        private static String join(List<String> parts) {
            StringBuilder out = new StringBuilder();
            for (String part : parts) out.append(out.length() == 0 ? "" : ", ").append(part);
            return out.toString();
        }
    }

    /** A page of a list, newest first; pass {@link #nextCursor()} as {@code before} for the next, older page. */
    public static final class Page<T> {
        private final List<T> items;
        private final long total;
        private final Long nextCursor;

        Page(List<T> items, long total, Long nextCursor) {
            this.items = items;
            this.total = total;
            this.nextCursor = nextCursor;
        }

        public List<T> items() { return items; }
        /** How many match in all, not only on this page. */
        public long total() { return total; }
        /** Null on the last page. */
        public Long nextCursor() { return nextCursor; }
    }
}
