package campaignmock.client;

import org.junit.rules.ExternalResource;

/**
 * JUnit 4: takes a mark before each test ({@link CampaignMockClient#mark()}) and hands the test its
 * {@link CampaignMockClient}. For Android instrumented tests, which run on {@code AndroidJUnitRunner} (JUnit 4),
 * and any JUnit 4 test. The server is the instrumentation argument {@code campaignMockServer}, else
 * {@code CAMPAIGN_MOCK_SERVER} ({@link CampaignMockClient#fromEnvironment()}).
 *
 * <p>Nothing is deleted between tests: the SDK remembers what it sent and does not register an installed app
 * again, so the device of the first test stays for the next ones. Each test counts from its mark
 * ({@link #since()}); {@link #failingOnFindings(String)} fails a test on the integration checks' findings since
 * its mark. {@link #resettingBeforeEachTest()} brings back the old clean slate for suites that want it.
 *
 * <pre>{@code
 * @Rule public final CampaignMockRule mock = new CampaignMockRule().failingOnFindings("error");
 *
 * @Test public void registers() {
 *     mock.client().waitForRegistration(mock.since("app", "campaign-mock-demo-android"), 1, 30);
 * }
 * }</pre>
 */
public class CampaignMockRule extends ExternalResource {
    private final CampaignMockClient client;
    private String mark;
    private String failOn;
    private boolean waitForWindows = true;
    private boolean reset;

    /** The server of {@link CampaignMockClient#fromEnvironment()}. */
    public CampaignMockRule() {
        this(CampaignMockClient.fromEnvironment());
    }

    public CampaignMockRule(CampaignMockClient client) {
        this.client = client;
    }

    /**
     * After each test, fails it when the integration checks found anything at or above {@code severity}
     * ({@code error}, {@code warning}, {@code info}) since its mark, once an open's window for its receive (10 s)
     * has passed.
     */
    public CampaignMockRule failingOnFindings(String severity) {
        failOn = severity;
        return this;
    }

    /** As {@link #failingOnFindings(String)}, without waiting for an open's window. */
    public CampaignMockRule failingOnFindingsWithoutWaiting(String severity) {
        waitForWindows = false;
        return failingOnFindings(severity);
    }

    /** Resets the mock (deleting its devices) before each test, then takes the mark. */
    public CampaignMockRule resettingBeforeEachTest() {
        reset = true;
        return this;
    }

    /** The client, for the test to wait and read with. */
    public CampaignMockClient client() {
        return client;
    }

    /** The mark taken before this test. */
    public String mark() {
        return mark;
    }

    /** {@code filters} (key, value, key, value…) with {@code since} this test's mark: for the waits and the checks. */
    public java.util.Map<String, String> since(String... filters) {
        java.util.Map<String, String> map = Filters.of(filters);
        map.put("since", mark);
        return map;
    }

    /** Says once when the server's version is not the client's (on standard error), then takes the mark. */
    @Override
    protected void before() {
        client.checkVersion();
        if (reset) client.reset();
        mark = client.mark();
    }

    /** With {@link #failingOnFindings(String)}: the findings since the test's mark fail it. */
    @Override
    protected void after() {
        if (failOn != null && mark != null) client.requireNoFindings(failOn, Filters.of("since", mark), waitForWindows);
    }
}
