package campaignmock.client;

import campaignmock.client.Items.ComposedPush;
import campaignmock.client.Items.Device;
import campaignmock.client.Items.FaultStatus;
import campaignmock.client.Items.Finding;
import campaignmock.client.Items.JournaledRequest;
import campaignmock.client.Items.Page;
import campaignmock.client.Items.Registration;
import campaignmock.client.Items.TrackingEvent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UnsupportedEncodingException;
import java.lang.reflect.InvocationTargetException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A client of campaign-mock's admin API ({@code /_mock/…}) for JVM and Android instrumented tests: reset
 * the mock, wait for what the app's SDK sent, read devices, events and the request journal, inject faults,
 * compose pushes and take snapshots. Java 8 or newer and Android API 24 or newer (build.sh holds it there),
 * nothing beyond the JDK ({@code HttpURLConnection}), so an instrumented test can use it over
 * {@code https://10.0.2.2:8443}, the address the emulator gives the computer.
 *
 * <pre>{@code
 * CampaignMockClient mock = CampaignMockClient.fromEnvironment();   // campaignMockServer, CAMPAIGN_MOCK_SERVER or 127.0.0.1:8080
 * mock.reset();
 * // … the test makes the app register …
 * List<Registration> registrations = mock.waitForRegistration(Filters.of("app", "campaign-mock-demo-android"), 1, 30);
 * }</pre>
 */
public final class CampaignMockClient {
    /** The client's version: the campaign-mock release it belongs to, whose server it expects. */
    public static final String VERSION = "0.2.0";

    private final URI base;
    private final String adminToken;
    private volatile String versionMismatch;

    /** {@code server} is {@code http://127.0.0.1:8080}, or {@code https://10.0.2.2:8443} from the Android emulator. */
    public CampaignMockClient(String server, String adminToken) {
        if (server == null || !(server.startsWith("http://") || server.startsWith("https://"))) {
            throw new IllegalArgumentException(
                    "'" + server + "' is not an http:// or https:// URL; set CAMPAIGN_MOCK_SERVER to the server's address");
        }
        this.base = URI.create(server.endsWith("/") ? server.substring(0, server.length() - 1) : server);
        this.adminToken = adminToken;
    }

    public CampaignMockClient(String server) {
        this(server, null);
    }

    /**
     * The server named by the instrumentation argument {@code campaignMockServer} in an Android instrumented
     * test ({@code -e campaignMockServer https://10.0.2.2:8443}), else by the system property or environment
     * variable {@code CAMPAIGN_MOCK_SERVER}, else {@code http://127.0.0.1:8080}; the admin token likewise from
     * {@code campaignMockAdminToken} or {@code CAMPAIGN_MOCK_ADMIN_TOKEN}.
     */
    public static CampaignMockClient fromEnvironment() {
        return new CampaignMockClient(setting("campaignMockServer", "CAMPAIGN_MOCK_SERVER", "http://127.0.0.1:8080"),
                setting("campaignMockAdminToken", "CAMPAIGN_MOCK_ADMIN_TOKEN", null));
    }

    private static String setting(String argument, String name, String fallback) {
        String value = instrumentationArgument(argument);
        if (value == null) value = System.getProperty(name);
        if (value == null) value = System.getenv(name);
        return value == null ? fallback : value;
    }

    /**
     * The instrumentation argument {@code name} ({@code adb shell am instrument -e NAME VALUE}, or
     * {@code testInstrumentationRunnerArguments} in Gradle), read through AndroidX Test's
     * {@code InstrumentationRegistry.getArguments()} by reflection, so the client needs no Android library
     * to build; null outside an instrumented test.
     */
    static String instrumentationArgument(String name) {
        try {
            Object arguments = Class.forName("androidx.test.platform.app.InstrumentationRegistry")
                    .getMethod("getArguments").invoke(null);
            if (arguments == null) return null;
            Object value = arguments.getClass().getMethod("getString", String.class).invoke(arguments, name);
            return value == null ? null : String.valueOf(value);
        } catch (ClassNotFoundException notAndroid) {
            return null;
        } catch (InvocationTargetException noInstrumentation) {
            return null; // "No instrumentation registered!": not run by an instrumentation
        } catch (ReflectiveOperationException other) {
            throw new IllegalStateException("cannot read the instrumentation argument " + name + ": " + other, other);
        }
    }

    public URI server() {
        return base;
    }

    // ------------------------------------------------------------------------------------------ control

    /** Whether {@code GET /_mock/ready} answers 200. */
    public boolean isReady() {
        try {
            return send("GET", "/_mock/ready", null, 10).status == 200;
        } catch (CampaignMockException unreachable) {
            return false;
        }
    }

    /**
     * The server's version ({@code GET /_mock/info}); when it is not {@link #VERSION}, says so once on standard
     * error (logcat's {@code System.err} on Android) and adds it to every failure's message from then on, as
     * the admin API may have changed between the two. Returns the server's version.
     */
    public String checkVersion() {
        Object version = object(call("GET", "/_mock/info", null, 200)).get("version");
        String server = String.valueOf(version);
        String mismatch = VERSION.equals(server) ? null
                : "this campaign-mock client is " + VERSION + " but the server at " + base + " is " + server
                        + "; use the client of the server's release (campaign-mock-client-" + server + ".jar)";
        if (mismatch != null && !mismatch.equals(versionMismatch)) System.err.println("campaign-mock: " + mismatch);
        versionMismatch = mismatch;
        return server;
    }

    /** Waits until the server is ready (a CI job that just started it), asking every 100 ms, then checks its version. */
    public void waitUntilReady(double timeoutSeconds) {
        long deadline = System.nanoTime() + (long) (timeoutSeconds * 1e9);
        while (System.nanoTime() < deadline) {
            if (isReady()) {
                checkVersion();
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new CampaignMockException("campaign-mock at " + base + " was not ready within " + timeoutSeconds
                + " s; check its output, or start it with campaign-mock serve", 0);
    }

    private volatile String lastMark;

    /**
     * Takes a mark ({@code POST /_mock/mark}): where a test starts. Pass it as {@code since} in the filters of
     * the waits and the checks ({@code Filters.of("app", KEY, "since", mark)}): they count exactly what came
     * after it. Nothing is deleted, so a device registered in an earlier test (which the SDK does not register
     * again) stays.
     */
    public String mark() {
        String mark = String.valueOf(object(call("POST", "/_mock/mark", null, 200)).get("mark"));
        lastMark = mark;
        return mark;
    }

    /** The mark this client took last ({@link #mark()}; the rule and the extension take one before each test), or null. */
    public String lastMark() {
        return lastMark;
    }

    /**
     * Empties devices, events, the journal, recipients, fault rules and the checks' findings (applications stay):
     * a clean slate, not a step between tests. An installed app with the AEP extension does not register again
     * after it (its registration did not change); take a {@link #mark()} between tests instead.
     */
    public Map<String, Object> reset() {
        return reset(null, null);
    }

    /** Empties the parts in {@code only} ({@code journal,events,devices,recipients,faults,findings}), of {@code app} when given. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> reset(String only, String app) {
        Map<String, Object> answer = object(call("POST", "/_mock/reset" + query(Filters.of("only", only, "app", app)), null, 200));
        return (Map<String, Object>) answer.get("deleted");
    }

    // ------------------------------------------------------------------------------------------ waiting

    /**
     * Waits for {@code count} registrations matching {@code filters} ({@code app}, {@code platform},
     * {@code userKey}, {@code token}, {@code param.NAME}), counting everything since the last reset, so one
     * that arrived before the call counts; or, with {@code since} in the filters (a {@link #mark()}), what came
     * after it.
     */
    public List<Registration> waitForRegistration(Map<String, String> filters, int count, double timeoutSeconds) {
        return waitFor("registration", filters, count, timeoutSeconds, Registration::new);
    }

    /** Waits for receive ({@code receive}) or open ({@code open}) hits matching {@code messageId}, {@code deliveryId}, {@code token}. */
    public List<TrackingEvent> waitForEvent(String type, Map<String, String> filters, int count, double timeoutSeconds) {
        if (!"receive".equals(type) && !"open".equals(type)) throw new IllegalArgumentException("type is receive or open");
        return waitFor(type, filters, count, timeoutSeconds, TrackingEvent::new);
    }

    /** Waits for journaled requests matching {@code endpoint}, {@code status}, {@code app}. */
    public List<JournaledRequest> waitForRequest(Map<String, String> filters, int count, double timeoutSeconds) {
        return waitFor("request", filters, count, timeoutSeconds, JournaledRequest::new);
    }

    private <T> List<T> waitFor(String kind, Map<String, String> filters, int count, double timeoutSeconds,
            Function<Object, T> make) {
        if (count < 1 || count > 1000) throw new IllegalArgumentException("count must be 1 to 1000");
        if (timeoutSeconds <= 0 || timeoutSeconds > 300) throw new IllegalArgumentException("timeout must be above 0 and at most 300 s");
        Map<String, String> query = new TreeMap<>(filters == null ? Collections.<String, String>emptyMap() : filters);
        query.put("for", kind);
        query.put("count", String.valueOf(count));
        if (!query.containsKey("since")) query.put("since", "0");
        query.put("timeout", Math.round(timeoutSeconds * 1000) + "ms");
        Response response = send("GET", "/_mock/wait" + query(query), null, timeoutSeconds + 10);
        Map<String, Object> answer = object(response.body);
        if (response.status == 408) {
            throw new CampaignMockException.TimedOut("waited for " + count + " " + kind + (count == 1 ? "" : "s") + " matching "
                    + filters + ", saw " + answer.get("count") + ": " + answer.get("error")
                    + " (did the app reach the mock? its requests are in requests())");
        }
        check(response, "GET", "/_mock/wait", 200);
        return items(answer.get("items"), make);
    }

    // ------------------------------------------------------------------------------------------ reading

    /** Devices matching {@code filters} ({@code app}, {@code platform}, {@code userKey}, {@code token}, {@code param.NAME}, {@code q}), newest first. */
    public Page<Device> devices(Map<String, String> filters, int limit, Long before) {
        return page("/_mock/devices", "devices", filters, limit, before, Device::new);
    }

    /** One device with its registration history and pushes; null when none. */
    public Device device(String token) {
        Response response = send("GET", "/_mock/devices/" + encode(token), null, 30);
        if (response.status == 404) return null;
        check(response, "GET", "/_mock/devices/{token}", 200);
        return new Device(Json.parse(response.body));
    }

    /**
     * Removes one device ({@code app}: its integration key, when the token is in several applications; else null)
     * with its registration history, its trust and the findings about it; its tracking events and composed pushes
     * stay, linked to no device. The answer counts each: {@code deleted.registrations}, {@code deleted.eventsUnlinked},
     * {@code deleted.pushesKept}, {@code trustRemoved}, {@code findingsCleared}.
     */
    public Item deleteDevice(String token, String app) {
        String path = "/_mock/devices/" + encode(token) + (app == null ? "" : "?app=" + encode(app));
        return new Item(Json.parse(call("DELETE", path, null, 200)));
    }

    /** Whether the token is trusted for real sends on the server's machine (explicit trust only). */
    public boolean isTrusted(String token) {
        return Boolean.TRUE.equals(object(call("GET", "/_mock/devices/" + encode(token) + "/trust", null, 200)).get("trusted"));
    }

    /** Trusts the token for real sends, or takes that back ({@code trusted} false), until the server stops. */
    public void setTrusted(String token, boolean trusted) {
        call(trusted ? "POST" : "DELETE", "/_mock/devices/" + encode(token) + "/trust", null, 200);
    }

    /** Tracking hits matching {@code filters} ({@code type}, {@code messageId}, {@code deliveryId}, {@code token}), newest first. */
    public Page<TrackingEvent> events(Map<String, String> filters, int limit, Long before) {
        return page("/_mock/events", "events", filters, limit, before, TrackingEvent::new);
    }

    /** The request journal ({@code endpoint}, {@code status}, {@code app}), newest first, each with its answer. */
    public Page<JournaledRequest> requests(Map<String, String> filters, int limit, Long before) {
        return page("/_mock/requests", "requests", filters, limit, before, JournaledRequest::new);
    }

    private <T> Page<T> page(String path, String key, Map<String, String> filters, int limit, Long before,
            Function<Object, T> make) {
        if (limit < 1 || limit > 1000) throw new IllegalArgumentException("limit must be 1 to 1000");
        Map<String, String> query = new TreeMap<>(filters == null ? Collections.<String, String>emptyMap() : filters);
        query.put("limit", String.valueOf(limit));
        if (before != null) query.put("before", String.valueOf(before));
        Map<String, Object> answer = object(call("GET", path + query(query), null, 200));
        Object cursor = answer.get("nextCursor");
        return new Page<>(items(answer.get(key), make), ((Number) answer.get("total")).longValue(),
                cursor == null ? null : ((Number) cursor).longValue());
    }

    // ------------------------------------------------------------------------------------------ applications, faults, pushes

    public List<Item> applications() {
        return items(object(call("GET", "/_mock/apps", null, 200)).get("apps"), Item::new);
    }

    /** Adds an application: {@code platform} is {@code ios} or {@code android}. */
    public Item addApplication(String platform, String integrationKey, String name) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("platform", platform);
        body.put("integrationKey", integrationKey);
        body.put("name", name);
        return new Item(Json.parse(call("POST", "/_mock/apps", Json.write(body), 201)));
    }

    /** Adds a fault rule; returns its id. */
    public String addFault(FaultRule rule) {
        return String.valueOf(object(call("POST", "/_mock/faults", Json.write(rule.fields), 201)).get("id"));
    }

    public List<FaultStatus> faults() {
        return items(object(call("GET", "/_mock/faults", null, 200)).get("faults"), FaultStatus::new);
    }

    public void removeFault(String id) {
        call("DELETE", "/_mock/faults/" + encode(id), null, 200);
    }

    public void clearFaults() {
        call("DELETE", "/_mock/faults", null, 200);
    }

    /**
     * Composes a push (docs/push.md): {@code fields} as {@code POST /_mock/push} takes them ({@code token},
     * {@code title}, {@code body}, {@code variables}, …).
     */
    public ComposedPush push(Map<String, Object> fields) {
        return new ComposedPush(Json.parse(call("POST", "/_mock/push", Json.write(fields), 201)));
    }

    public ComposedPush push(long id) {
        return new ComposedPush(Json.parse(call("GET", "/_mock/push/" + id, null, 200)));
    }

    /**
     * Puts the iOS message of push {@code id} ({@code token}'s, when it has several; may be null) on a booted
     * simulator of the server's machine ({@code device}: {@code booted} or a UDID): {@code xcrun simctl push}.
     * The answer says what ran and what it printed; a tool that fails is thrown with it.
     */
    public Item deliverToSimulator(long id, String token, String device) {
        Map<String, Object> body = new LinkedHashMap<>();
        if (token != null) body.put("registrationToken", token);
        body.put("device", device == null ? "booted" : device);
        return new Item(Json.parse(call("POST", "/_mock/push/" + id + "/simulator", Json.write(body), 200)));
    }

    /**
     * Hands the Android message of push {@code id} ({@code token}'s, when it has several; may be null) to the app
     * on an emulator of the server's machine ({@code serial}, or null for the only one running), as FCM would.
     */
    public Item deliverToEmulator(long id, String token, String serial) {
        Map<String, Object> body = new LinkedHashMap<>();
        if (token != null) body.put("registrationToken", token);
        if (serial != null) body.put("serial", serial);
        return new Item(Json.parse(call("POST", "/_mock/push/" + id + "/emulator", Json.write(body), 200)));
    }

    /** The composed pushes, newest first, each with its {@code sends} and {@code hits} ({@code limit} 1 to 200). */
    public Page<ComposedPush> pushes(int limit, Long before) {
        if (limit > 200) throw new IllegalArgumentException("limit must be 1 to 200");
        return page("/_mock/push", "pushes", null, limit, before, ComposedPush::new);
    }

    /** Sends the tracking hit the SDK sends for {@code path} (a message's receive or open path), as the app would. */
    public void simulateTracking(String path) {
        call("GET", path, null, 200);
    }

    // ------------------------------------------------------------------------------------------ integration checks

    /**
     * What the integration checks found in the apps' traffic ({@code GET /_mock/checks}, docs/checks.md), errors
     * first; {@code filters}: {@code app}, {@code token}, {@code severity} (those at or above it), {@code since}
     * (a {@link #mark()}: those with a request of their evidence after it, whenever they fired; or RFC 3339:
     * those last seen from then on).
     */
    public List<Finding> checks(Map<String, String> filters) {
        Map<String, String> query = new TreeMap<>(filters == null ? Collections.<String, String>emptyMap() : filters);
        return items(object(call("GET", "/_mock/checks" + query(query), null, 200)).get("findings"), Finding::new);
    }

    /**
     * Fails the test when the integration checks found anything at or above {@code severity} ({@code error},
     * {@code warning} or {@code info}): an {@link AssertionError} whose message gives each finding's title, what
     * it means and what to change in the app, so the test report says what the app gets wrong.
     */
    public void requireNoFindings(String severity) {
        requireNoFindings(severity, null);
    }

    /** As {@link #requireNoFindings(String)}, for the findings matching {@code filters} ({@code app}, {@code token}, {@code since}). */
    public void requireNoFindings(String severity, Map<String, String> filters) {
        requireNoFindings(severity, filters, false);
    }

    /**
     * As {@link #requireNoFindings(String, Map)}; {@code wait} first waits out an open's window for its receive
     * (10 s), so an open whose receive never comes is counted. The 2-minute window of a send is not waited for.
     */
    @SuppressWarnings("unchecked")
    public void requireNoFindings(String severity, Map<String, String> filters, boolean wait) {
        Map<String, String> query = new TreeMap<>(filters == null ? Collections.<String, String>emptyMap() : filters);
        query.put("severity", severity);
        Map<String, Object> report = object(call("GET", "/_mock/checks" + query(query), null, 200));
        Object windows = report.get("windows");
        Object open = windows instanceof Map ? ((Map<String, Object>) windows).get("openReceive") : null;
        if (wait && open instanceof Map) {
            long closes = ((Number) ((Map<String, Object>) open).get("closesInMilliseconds")).longValue();
            long length = ((Number) ((Map<String, Object>) open).get("lengthMilliseconds")).longValue();
            if (closes > 0) {
                try {
                    Thread.sleep(Math.max(0, Math.min(Math.min(closes, length), 600_000)) + 100); // bounded by the window, whatever a server answers
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new CampaignMockException("interrupted while waiting out the checks' windows", 0);
                }
                report = object(call("GET", "/_mock/checks" + query(query), null, 200));
            }
        }
        List<Finding> found = items(report.get("findings"), Finding::new);
        if (found.isEmpty()) return;
        StringBuilder message = new StringBuilder("campaign-mock's integration checks found " + found.size() + " finding"
                + (found.size() == 1 ? "" : "s") + " at or above " + severity + " (" + base + "/_mock/checks):");
        for (Finding finding : found) message.append("\n").append(finding.describe());
        throw new AssertionError(message.toString());
    }

    // ------------------------------------------------------------------------------------------ snapshots

    /** Everything stored, as the JSON document {@link #restore(String)} takes back. */
    public String snapshot() {
        return call("GET", "/_mock/state", null, 200);
    }

    /** Replaces everything stored with {@code snapshot}, atomically. */
    public void restore(String snapshot) {
        call("PUT", "/_mock/state", snapshot, 200);
    }

    // ------------------------------------------------------------------------------------------ HTTP

    private String call(String method, String path, String body, int expected) {
        Response response = send(method, path, body, 30);
        check(response, method, path, expected);
        return response.body;
    }

    /** A status and a body. */
    private static final class Response {
        final int status;
        final String body;

        Response(int status, String body) {
            this.status = status;
            this.body = body;
        }
    }

    private Response send(String method, String path, String body, double timeoutSeconds) {
        HttpURLConnection connection = null;
        try {
            connection = (HttpURLConnection) URI.create(base + path).toURL().openConnection();
            connection.setRequestMethod(method);
            connection.setConnectTimeout(10_000);
            connection.setReadTimeout((int) (timeoutSeconds * 1000));
            connection.setRequestProperty("Accept", "application/json");
            // What the routes that run a tool on the server's machine want (a web page cannot send it).
            connection.setRequestProperty("Campaign-Mock-Client", "jvm");
            if (adminToken != null) connection.setRequestProperty("Authorization", "Bearer " + adminToken);
            if (body != null) {
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                connection.setDoOutput(true);
                connection.setRequestProperty("Content-Type", "application/json");
                connection.setFixedLengthStreamingMode(bytes.length);
                try (OutputStream out = connection.getOutputStream()) {
                    out.write(bytes);
                }
            }
            int status = connection.getResponseCode();
            InputStream stream = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            if (stream != null) {
                try (InputStream in = stream) {
                    byte[] buffer = new byte[8192];
                    for (int count = in.read(buffer); count >= 0; count = in.read(buffer)) bytes.write(buffer, 0, count);
                }
            }
            return new Response(status, new String(bytes.toByteArray(), StandardCharsets.UTF_8));
        } catch (javax.net.ssl.SSLException failure) {
            throw new CampaignMockException("campaign-mock at " + base + " answered, but its certificate is not trusted here ("
                    + failure.getMessage() + "): this device does not trust the CA that signs it. Give the debug build the "
                    + "network security config that trusts it (campaign-mock ca export --format android-nsc), or install the "
                    + "CA on the emulator; a server started with another CAMPAIGN_MOCK_CAROOT signs with another CA "
                    + "(docs/https.md)", 0);
        } catch (IOException failure) {
            throw new CampaignMockException("campaign-mock at " + base + " cannot be reached (" + failure + "); is it running "
                    + "(campaign-mock serve), and is this the address the device uses (10.0.2.2 from the Android emulator)?", 0);
        } finally {
            if (connection != null) connection.disconnect();
        }
    }

    private void check(Response response, String method, String path, int expected) {
        if (response.status == expected) return;
        String message = response.body;
        try {
            Object error = object(message).get("error");
            if (error != null) message = String.valueOf(error);
        } catch (IllegalArgumentException notJson) {
            // the body as it is
        }
        String hint = response.status == 401 || response.status == 403
                ? " (pass the server's --admin-token to the client)" : "";
        String version = versionMismatch == null ? "" : " (" + versionMismatch + ")";
        throw new CampaignMockException(method + " " + path + ": " + response.status + " " + message + hint + version,
                response.status);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(String text) {
        Object value = Json.parse(text);
        if (!(value instanceof Map)) throw new IllegalArgumentException("not the JSON object campaign-mock sends");
        return (Map<String, Object>) value;
    }

    private static <T> List<T> items(Object list, Function<Object, T> make) {
        List<T> items = new ArrayList<>();
        if (list instanceof List) for (Object item : (List<?>) list) items.add(make.apply(item));
        return items;
    }

    private static String query(Map<String, String> parameters) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, String> entry : parameters.entrySet()) {
            if (entry.getValue() == null) continue;
            out.append(out.length() == 0 ? '?' : '&').append(encode(entry.getKey())).append('=').append(encode(entry.getValue()));
        }
        return out.toString();
    }

    private static String encode(String text) {
        try {
            return URLEncoder.encode(text, "UTF-8").replace("+", "%20");
        } catch (UnsupportedEncodingException impossible) {
            throw new IllegalStateException(impossible); // every JVM and Android has UTF-8
        }
    }

    /** The admin API's operations this client calls, and those it leaves out; a test compares them with the OpenAPI document. */
    public static final List<String> COVERED = Arrays.asList(
            "get /_mock/ready", "post /_mock/reset", "get /_mock/wait", "get /_mock/devices", "get /_mock/devices/{token}",
            "get /_mock/events", "get /_mock/requests", "get /_mock/apps", "post /_mock/apps", "get /_mock/faults",
            "post /_mock/faults", "delete /_mock/faults", "delete /_mock/faults/{id}", "post /_mock/push",
            "get /_mock/push/{id}", "get /_mock/state", "put /_mock/state", "get /_mock/info", "get /_mock/checks",
            "post /_mock/mark", "post /_mock/push/{id}/simulator", "post /_mock/push/{id}/emulator",
            "delete /_mock/devices/{token}", "get /_mock/push", "get /_mock/devices/{token}/trust",
            "post /_mock/devices/{token}/trust", "delete /_mock/devices/{token}/trust");
    public static final List<String> LEFT_OUT = Arrays.asList(
            "get /_mock/health", "get /_mock/requests/{id}", "delete /_mock/requests", "put /_mock/apps/{key}",
            "delete /_mock/apps/{key}", "get /_mock/ca", "get /_mock/metrics", "get /_mock/openapi.json",
            "get /_mock/ui", "get /_mock/ui/{file}", "get /_mock/stream", "post /_mock/push/{id}/send",
            "post /_mock/push/check", "get /_mock/simulators", "get /_mock/emulators");
}
