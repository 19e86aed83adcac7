package campaignmock.client;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import android.os.Bundle;
import androidx.test.platform.app.InstrumentationRegistry;
import campaignmock.client.Items.Registration;
import java.util.List;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.runner.Description;
import org.junit.runners.model.Statement;

/**
 * The JUnit 4 rule against a live campaign-mock ({@link LiveServer}), as an Android instrumented test uses
 * it: run by JUnit 4 (the console launcher's vintage engine here, AndroidJUnitRunner on a device).
 */
public class CampaignMockRuleTest {
    @Rule
    public final CampaignMockRule mock = new CampaignMockRule();

    @BeforeClass
    public static void start() throws Exception {
        LiveServer.url();
    }

    @Test
    public void waitsForTheAppsRegistration() throws Exception {
        assertEquals(200, LiveServer.registerAndroid("rule-1", "jane%40example.com", "gold"));
        List<Registration> registrations = mock.client().waitForRegistration(
                Filters.of("app", "campaign-mock-demo-android", "userKey", "jane@example.com"), 1, 10);
        assertEquals("rule-1", registrations.get(0).registrationToken());
        assertEquals("gold", registrations.get(0).param("plan"));
    }

    @Test
    public void resetsBeforeEachTestWhenAsked() throws Throwable {
        assertEquals(200, LiveServer.registerAndroid("left-behind", "", "x"));
        final long[] devices = {-1};
        final CampaignMockRule resetting = new CampaignMockRule().resettingBeforeEachTest();
        resetting.apply(new Statement() {
            @Override
            public void evaluate() {
                devices[0] = resetting.client().devices(null, 1, null).total();
            }
        }, Description.EMPTY).evaluate();
        assertEquals(0, devices[0]);
    }

    /**
     * By default nothing is deleted: each test takes a mark. The device of an earlier test stays; a later test's
     * wait for a registration the SDK does not send again says so; a test fails on its own findings only.
     */
    @Test
    public void eachTestTakesAMarkAndFailsOnItsOwnFindings() throws Throwable {
        final CampaignMockRule rule = new CampaignMockRule().failingOnFindingsWithoutWaiting("error");
        rule.apply(new Statement() {
            @Override
            public void evaluate() throws Exception {
                assertEquals(200, LiveServer.registerAndroid("marked-1", "", "x"));
                rule.client().waitForRegistration(rule.since("token", "marked-1"), 1, 10);
            }
        }, Description.EMPTY).evaluate();
        final String[] timedOut = {null};
        rule.apply(new Statement() {
            @Override
            public void evaluate() {
                assertNotNull(rule.client().device("marked-1"));
                try {
                    rule.client().waitForRegistration(rule.since("token", "marked-1"), 1, 0.3);
                } catch (CampaignMockException.TimedOut expected) {
                    timedOut[0] = expected.getMessage();
                }
            }
        }, Description.EMPTY).evaluate();
        assertNotNull(timedOut[0]);
        assertTrue(timedOut[0], timedOut[0].contains("token marked-1"));
        assertTrue(timedOut[0], timedOut[0].contains("sends no registration identical to its last one"));
        try {
            rule.apply(new Statement() {
                @Override
                public void evaluate() throws Exception {
                    String body = "registrationToken=t&mobileAppUuid=campaign-mock-demo-andriod";
                    java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create(LiveServer.url() + "/nms/mobile/1/registerAndroid.jssp"))
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build();
                    assertEquals(404, java.net.http.HttpClient.newHttpClient()
                            .send(request, java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode());
                }
            }, Description.EMPTY).evaluate();
            fail("the finding did not fail the test");
        } catch (AssertionError expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("registration-refused"));
        }
        // The next test is not failed by the finding of the one before.
        rule.apply(new Statement() {
            @Override
            public void evaluate() {}
        }, Description.EMPTY).evaluate();
    }

    /** {@code -e campaignMockServer URL} wins over CAMPAIGN_MOCK_SERVER, read through InstrumentationRegistry. */
    @Test
    public void theServerComesFromTheInstrumentationArgument() throws Throwable {
        String url = LiveServer.url();
        Bundle arguments = new Bundle();
        arguments.putString("campaignMockServer", url);
        InstrumentationRegistry.arguments = arguments;
        System.setProperty("CAMPAIGN_MOCK_SERVER", "http://127.0.0.1:9");
        try {
            final CampaignMockRule fromArguments = new CampaignMockRule().resettingBeforeEachTest();
            assertEquals(url, fromArguments.client().server().toString());
            assertEquals(200, LiveServer.registerAndroid("argued", "", "x"));
            final long[] devices = {-1};
            fromArguments.apply(new Statement() {
                @Override
                public void evaluate() {
                    devices[0] = fromArguments.client().devices(null, 1, null).total();
                }
            }, Description.EMPTY).evaluate();
            assertEquals(0, devices[0]);
        } finally {
            InstrumentationRegistry.arguments = null;
            System.setProperty("CAMPAIGN_MOCK_SERVER", url);
        }
        assertEquals(url, CampaignMockClient.fromEnvironment().server().toString());
    }
}
