package campaignmock.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import campaignmock.client.Items.ComposedPush;
import campaignmock.client.Items.Device;
import campaignmock.client.Items.Message;
import campaignmock.client.Items.Page;
import campaignmock.client.Items.Registration;
import campaignmock.client.Items.TrackingEvent;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The client and its JUnit 5 extension against a live campaign-mock ({@code CAMPAIGN_MOCK_BINARY}, started
 * here on a free port); the extension resets it before each test.
 */
@ExtendWith(CampaignMockExtension.class)
class CampaignMockClientTest {
    private static Process server;
    private static String url;

    @BeforeAll
    static void start() throws Exception {
        String binary = System.getenv().getOrDefault("CAMPAIGN_MOCK_BINARY", "../../.build/debug/campaign-mock");
        Path directory = Files.createTempDirectory("campaign-mock-jvm");
        server = new ProcessBuilder(binary, "serve", "--port", "0", "--in-memory").directory(directory.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader banner = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        Pattern address = Pattern.compile("http://127\\.0\\.0\\.1:\\d+");
        for (String line = banner.readLine(); line != null && url == null; line = banner.readLine()) {
            Matcher match = address.matcher(line);
            if (match.find()) url = match.group();
        }
        assertNotNull(url, "campaign-mock did not print its URL");
        // What an Android test run passes as an instrumentation argument or a CI job as an environment variable.
        System.setProperty("CAMPAIGN_MOCK_SERVER", url);
    }

    @AfterAll
    static void stop() {
        if (server != null) server.destroy();
    }

    /** What the Android SDK sends for a registration. */
    private static int register(String token, String userKey, String plan) throws Exception {
        String body = "registrationToken=" + token + "&mobileAppUuid=campaign-mock-demo-android&userKey=" + userKey
                + "&deviceModel=Pixel%208&osName=android"
                + "&additionalParams=%3CadditionalParameters%3E%3Cparam%20name%3D%22plan%22%20value%3D%22" + plan
                + "%22%2F%3E%3C%2FadditionalParameters%3E";
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/nms/mobile/1/registerAndroid.jssp"))
                .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
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
    void theExtensionResetsBeforeEachTest(CampaignMockClient mock) throws Exception {
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
}
