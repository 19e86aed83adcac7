package campaignmock.client;

import static org.junit.Assert.assertEquals;

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
    public void resetsBeforeEachTest() throws Throwable {
        assertEquals(200, LiveServer.registerAndroid("left-behind", "", "x"));
        final long[] devices = {-1};
        mock.apply(new Statement() {
            @Override
            public void evaluate() {
                devices[0] = mock.client().devices(null, 1, null).total();
            }
        }, Description.EMPTY).evaluate();
        assertEquals(0, devices[0]);
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
            final CampaignMockRule fromArguments = new CampaignMockRule();
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
