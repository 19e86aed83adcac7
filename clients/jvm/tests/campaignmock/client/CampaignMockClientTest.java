package campaignmock.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import campaignmock.client.Items.ComposedPush;
import campaignmock.client.Items.Device;
import campaignmock.client.Items.Finding;
import campaignmock.client.Items.Message;
import campaignmock.client.Items.Page;
import campaignmock.client.Items.Registration;
import campaignmock.client.Items.TrackingEvent;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client and its JUnit 5 extension against a live campaign-mock ({@link LiveServer}); the extension
 * resets it before each test here (its option), so each test counts what it sees from nothing.
 */
class CampaignMockClientTest {
    @RegisterExtension
    static final CampaignMockExtension EXTENSION = new CampaignMockExtension().resettingBeforeEachTest();

    private static String url;

    @BeforeAll
    static void start() throws Exception {
        url = LiveServer.url();
    }

    private static int register(String token, String userKey, String plan) throws Exception {
        return LiveServer.registerAndroid(token, userKey, plan);
    }

    @Test
    void waitsForARegistrationWithAUserKey(CampaignMockClient mock) throws Exception {
        assertTrue(mock.isReady());
        assertEquals(200, register("fcm-1", "jane%40example.com", "gold"));
        List<Registration> registrations = mock.waitForRegistration(
                Filters.of("app", "campaign-mock-demo-android", "userKey", "jane@example.com"), 1, 10);
        assertEquals("fcm-1", registrations.get(0).registrationToken());
        assertEquals("gold", registrations.get(0).param("plan"));
        assertEquals("Pixel 8", registrations.get(0).device("deviceModel"));
        Device device = mock.device("fcm-1");
        assertEquals("jane@example.com", device.userKey());
        assertNull(mock.device("nope"));
    }

    @Test
    void trustsListsPushesAndRemovesADevice(CampaignMockClient mock) throws Exception {
        assertEquals(200, register("fcm-gone", "jane%40example.com", "gold"));
        assertFalse(mock.device("fcm-gone").trusted());
        mock.setTrusted("fcm-gone", true);
        assertTrue(mock.isTrusted("fcm-gone"));
        assertTrue(mock.devices(null, 10, null).items().get(0).trusted());
        ComposedPush push = mock.push(Map.of("token", "fcm-gone", "title", "Sale", "body", "Hi"));
        mock.simulateTracking(push.messages().get(0).receivePath());
        Page<ComposedPush> pushes = mock.pushes(10, null);
        assertEquals(1, pushes.total());
        assertEquals(push.id(), pushes.items().get(0).id());
        assertEquals(1L, ((Number) ((Map<?, ?>) pushes.items().get(0).json().get("hits")).get("receive")).longValue());
        Map<String, Object> removed = mock.deleteDevice("fcm-gone", null).json();
        assertEquals(Boolean.TRUE, removed.get("trustRemoved"));
        assertEquals(1L, ((Number) ((Map<?, ?>) removed.get("deleted")).get("eventsUnlinked")).longValue());
        assertNull(mock.device("fcm-gone"));
        assertEquals(1, mock.pushes(10, null).total());
        assertEquals(404, assertThrows(CampaignMockException.class, () -> mock.deleteDevice("fcm-gone", null)).status());
    }

    @Test
    void anUntrustedCertificateIsSaidAsSuch() throws Exception {
        // A server over HTTPS with a CA of its own, which this JVM's trust store does not hold.
        String binary = java.nio.file.Path.of(System.getenv().getOrDefault("CAMPAIGN_MOCK_BINARY", "../../.build/debug/campaign-mock"))
                .toAbsolutePath().normalize().toString();
        java.nio.file.Path folder = java.nio.file.Files.createTempDirectory("campaign-mock-untrusted");
        ProcessBuilder builder = new ProcessBuilder(binary, "serve", "--port", "0", "--in-memory", "--tls", "auto",
                "--tls-port", "0").directory(folder.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("CAMPAIGN_MOCK_CAROOT", folder.resolve("ca").toString());
        Process server = builder.start();
        try {
            java.io.BufferedReader banner = new java.io.BufferedReader(
                    new java.io.InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            java.util.regex.Pattern https = java.util.regex.Pattern.compile("https://localhost:\\d+");
            String url = null;
            for (String line = banner.readLine(); line != null && url == null; line = banner.readLine()) {
                java.util.regex.Matcher match = https.matcher(line);
                if (match.find()) url = match.group();
            }
            assertNotNull(url, "the server printed no HTTPS address");
            CampaignMockClient untrusting = new CampaignMockClient(url);
            CampaignMockException failure = assertThrows(CampaignMockException.class, () -> untrusting.devices(null, 10, null));
            assertTrue(failure.getMessage().contains("certificate is not trusted"), failure.getMessage());
            assertTrue(failure.getMessage().contains("network security config"), failure.getMessage());
            assertFalse(failure.getMessage().contains("is it running"), failure.getMessage());
        } finally {
            server.destroy();
        }
    }

    @Test
    void theExtensionResetsBeforeEachTestWhenAsked(CampaignMockClient mock) throws Exception {
        assertEquals(0, mock.devices(null, 100, null).total());
        assertEquals(200, register("left-behind", "", "x"));
    }

    @Test
    void aWaitThatTimesOutSaysWhatItSaw(CampaignMockClient mock) throws Exception {
        assertEquals(200, register("other", "", "x"));
        CampaignMockException.TimedOut timeout = assertThrows(CampaignMockException.TimedOut.class,
                () -> mock.waitForRegistration(Filters.of("userKey", "nobody"), 1, 0.3));
        assertTrue(timeout.getMessage().contains("saw 0"), timeout.getMessage());
    }

    @Test
    void pagesNewestFirst(CampaignMockClient mock) throws Exception {
        for (int index = 0; index < 120; index++) assertEquals(200, register("t" + index, "", index % 2 == 0 ? "gold" : "silver"));
        Page<Device> first = mock.devices(null, 100, null);
        assertEquals(120, first.total());
        assertEquals("t119", first.items().get(0).registrationToken());
        Page<Device> second = mock.devices(null, 100, first.nextCursor());
        assertEquals(20, second.items().size());
        assertNull(second.nextCursor());
        assertEquals(60, mock.devices(Filters.of("param.plan", "gold"), 1, null).total());
        assertEquals(120, mock.requests(Filters.of("endpoint", "registration-android"), 1, null).total());
        assertEquals("OK", mock.requests(null, 1, null).items().get(0).responseBody());
    }

    @Test
    void faultPresetsMakeTheSDKFail(CampaignMockClient mock) throws Exception {
        String id = mock.addFault(FaultRule.serverError("registration-android", 503, "maintenance").times(1));
        assertEquals(503, register("x", "", "x"));
        assertEquals(200, register("x", "", "x"));
        assertEquals(1, mock.faults().get(0).fired());
        mock.removeFault(id);
        mock.addFault(FaultRule.connectionDropped("tracking"));
        mock.clearFaults();
        assertTrue(mock.faults().isEmpty());
    }

    @Test
    void composesAPushAndSeesItsTrackingLinked(CampaignMockClient mock) throws Exception {
        assertEquals(200, register("fcm-push", "", "x"));
        ComposedPush push = mock.push(Map.of("token", "fcm-push", "title", "Sale", "variables", Map.of("VAR", "x")));
        Message message = push.messages().get(0);
        assertEquals("android", message.platform());
        mock.simulateTracking(message.receivePath());
        mock.simulateTracking(message.openPath());
        List<TrackingEvent> opens = mock.waitForEvent("open", Filters.of("token", "fcm-push"), 1, 10);
        assertEquals(message.messageId(), opens.get(0).linkedMessageId());
        assertEquals(2, mock.events(Filters.of("token", "fcm-push"), 10, null).total());
        assertEquals(push.id(), mock.push(push.id()).id());
    }

    @Test
    void snapshotsAndApplications(CampaignMockClient mock) throws Exception {
        assertEquals(200, register("keep", "", "x"));
        String snapshot = mock.snapshot();
        mock.reset();
        mock.restore(snapshot);
        assertEquals("keep", mock.devices(null, 10, null).items().get(0).registrationToken());
        mock.addApplication("ios", "shop-key", "Shop");
        assertTrue(mock.applications().stream().anyMatch(app -> "shop-key".equals(app.json().get("integrationKey"))));
        CampaignMockException conflict = assertThrows(CampaignMockException.class, () -> mock.addApplication("ios", "shop-key", "Shop"));
        assertEquals(409, conflict.status());
    }

    /** The integration checks read the traffic as it commits: asks until {@code count} findings are listed (or a minute passes). */
    private static List<Finding> findings(CampaignMockClient mock, int count) throws InterruptedException {
        for (int attempt = 0; attempt < 1200; attempt++) {
            List<Finding> findings = mock.checks(null);
            if (findings.size() == count) return findings;
            Thread.sleep(50);
        }
        throw new AssertionError("the integration checks never listed " + count + " findings: " + mock.checks(null));
    }

    /** A finding quotes what a device sent (an unknown key holding a window-title sequence, a line break and a
     * GitHub workflow command): the error a CI log shows escapes it. */
    @Test
    void requireNoFindingsEscapesWhatADeviceSent(CampaignMockClient mock) throws Exception {
        String body = "registrationToken=fcm-x&userKey=&mobileAppUuid=campaign-mock-demo-androi%1B%5D0%3Bowned%07%0A%3A%3Aerror%3A%3Ax";
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/nms/mobile/1/registerAndroid.jssp"))
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        assertEquals(404, HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).statusCode());
        findings(mock, 1);
        AssertionError failure = assertThrows(AssertionError.class, () -> mock.requireNoFindings("info"));
        String words = failure.getMessage();
        assertTrue(words.contains("campaign-mock-demo-androi\\u001b]0;owned\\u0007\\n::error::x"), words);
        assertFalse(words.chars().anyMatch((c) -> c == 0x1B || c == 0x07), words);
        for (String line : words.split("\n")) assertFalse(line.startsWith("::"), words);
    }

    @Test
    void requireNoFindingsFailsWithEachFindingsWords(CampaignMockClient mock) throws Exception {
        // The Android app's devices call the same param `plan` and `Plan` (param-drift, a warning) ...
        assertEquals(200, register("fcm-a", "a%40example.com", "gold"));
        assertEquals(200, LiveServer.registerAndroid("fcm-b", "b%40example.com", "gold", "Plan"));
        // ... and the iOS build registers its APNs token with the Android key (token-platform-mismatch, an error).
        String apnsToken = "6e65772d6170706c652d746f6b656e2d6578616d706c652d33322d6279746573";
        assertEquals(200, register(apnsToken, "c%40example.com", "gold"));
        List<Finding> findings = findings(mock, 2);
        Finding mismatch = findings.get(0);
        assertEquals("token-platform-mismatch", mismatch.rule());
        assertEquals("error", mismatch.severity());
        assertEquals(apnsToken, mismatch.registrationToken());
        assertEquals("campaign-mock-demo-android", mismatch.app());
        assertEquals("docs/checks.md#token-platform-mismatch", mismatch.doc());
        assertFalse(mismatch.requestIds().isEmpty());
        assertEquals("param-drift", findings.get(1).rule());

        AssertionError failure = assertThrows(AssertionError.class, () -> mock.requireNoFindings("warning"));
        String words = failure.getMessage();
        assertTrue(words.startsWith("campaign-mock's integration checks found 2 findings at or above warning"), words);
        for (Finding finding : findings) {
            for (String part : new String[] {finding.rule(), finding.title(), finding.message(), "Fix: " + finding.fix(), finding.doc()}) {
                assertTrue(words.contains(part), part + " is not in: " + words);
            }
        }
        AssertionError errors = assertThrows(AssertionError.class, () -> mock.requireNoFindings("error"));
        assertTrue(errors.getMessage().contains("found 1 finding at or above error"), errors.getMessage());
        assertFalse(errors.getMessage().contains("param-drift"), errors.getMessage());
        // One device, or the other application: nothing.
        mock.requireNoFindings("info", Filters.of("token", "fcm-a"));
        mock.requireNoFindings("info", Filters.of("app", "campaign-mock-demo-ios"));
        assertEquals(1, mock.checks(Filters.of("severity", "error")).size());
        CampaignMockException refused = assertThrows(CampaignMockException.class, () -> mock.requireNoFindings("fatal"));
        assertEquals(400, refused.status());
    }

    @Test
    void anUnreachableServerIsNamed() {
        CampaignMockClient nowhere = new CampaignMockClient("http://127.0.0.1:9");
        assertFalse(nowhere.isReady());
        CampaignMockException failure = assertThrows(CampaignMockException.class, () -> nowhere.devices(null, 1, null));
        assertTrue(failure.getMessage().contains("cannot be reached"), failure.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new CampaignMockClient("ftp://x"));
    }

    /** Every operation of the OpenAPI document is called by the client or left out on purpose. */
    @Test
    @SuppressWarnings("unchecked")
    void coversTheAdminAPIsOperations() throws Exception {
        HttpResponse<String> answer = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(url + "/_mock/openapi.json")).build(), HttpResponse.BodyHandlers.ofString());
        Map<String, Object> paths = (Map<String, Object>) ((Map<String, Object>) Json.parse(answer.body())).get("paths");
        Set<String> documented = new HashSet<>();
        for (Map.Entry<String, Object> path : paths.entrySet()) {
            for (String method : ((Map<String, Object>) path.getValue()).keySet()) documented.add(method + " " + path.getKey());
        }
        Set<String> known = new HashSet<>(CampaignMockClient.COVERED);
        known.addAll(CampaignMockClient.LEFT_OUT);
        assertEquals(documented, known);
    }

    @Test
    void theServersVersionIsTheClients(CampaignMockClient mock) {
        assertEquals(CampaignMockClient.VERSION, mock.checkVersion());
    }

    /** A server of another release (here a stand-in answering /_mock/info) is named, once, and in each failure. */
    @Test
    void aServerOfAnotherVersionIsNamed() throws Exception {
        HttpServer other = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        other.createContext("/_mock/info", exchange -> answer(exchange, 200, "{\"version\":\"0.0.1\"}"));
        other.createContext("/_mock/devices", exchange -> answer(exchange, 400, "{\"error\":\"unknown parameter\"}"));
        other.start();
        PrintStream standardError = System.err;
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        try {
            CampaignMockClient client = new CampaignMockClient("http://127.0.0.1:" + other.getAddress().getPort());
            System.setErr(new PrintStream(said, true, "UTF-8"));
            assertEquals("0.0.1", client.checkVersion());
            client.checkVersion();
            System.setErr(standardError);
            String warning = "this campaign-mock client is " + CampaignMockClient.VERSION + " but the server at "
                    + client.server() + " is 0.0.1";
            String text = said.toString("UTF-8");
            assertTrue(text.contains(warning), text);
            assertEquals(text.indexOf(warning), text.lastIndexOf(warning), "said once: " + text);
            CampaignMockException failure = assertThrows(CampaignMockException.class, () -> client.devices(null, 1, null));
            assertTrue(failure.getMessage().contains("400 unknown parameter (" + warning), failure.getMessage());
        } finally {
            System.setErr(standardError);
            other.stop(0);
        }
    }

    private static void answer(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }
}
