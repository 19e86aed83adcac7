package campaignmock.client;

import org.junit.rules.ExternalResource;

/**
 * JUnit 4: resets campaign-mock before each test and hands the test its {@link CampaignMockClient}. For
 * Android instrumented tests, which run on {@code AndroidJUnitRunner} (JUnit 4), and any JUnit 4 test. The
 * server is the instrumentation argument {@code campaignMockServer}, else {@code CAMPAIGN_MOCK_SERVER}
 * ({@link CampaignMockClient#fromEnvironment()}).
 *
 * <pre>{@code
 * @Rule public final CampaignMockRule mock = new CampaignMockRule();
 *
 * @Test public void registers() {
 *     mock.client().waitForRegistration(Filters.of("app", "campaign-mock-demo-android"), 1, 30);
 * }
 * }</pre>
 */
public class CampaignMockRule extends ExternalResource {
    private final CampaignMockClient client;

    /** The server of {@link CampaignMockClient#fromEnvironment()}. */
    public CampaignMockRule() {
        this(CampaignMockClient.fromEnvironment());
    }

    public CampaignMockRule(CampaignMockClient client) {
        this.client = client;
    }

    /** The client, for the test to wait and read with. */
    public CampaignMockClient client() {
        return client;
    }

    /** Says once when the server's version is not the client's (on standard error), then resets the mock. */
    @Override
    protected void before() {
        client.checkVersion();
        client.reset();
    }
}
