package campaignmock.client;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5: takes a mark before each test ({@link CampaignMockClient#mark()}: the test reads it with
 * {@link CampaignMockClient#lastMark()}), and hands the test a {@link CampaignMockClient} as a parameter. For JVM
 * tests; Android instrumented tests run on JUnit 4 and use {@code CampaignMockRule}. The server is
 * {@code CAMPAIGN_MOCK_SERVER} (system property or environment variable), else {@code http://127.0.0.1:8080}
 * ({@link CampaignMockClient#fromEnvironment()}); its version is checked once.
 *
 * <p>Nothing is deleted between tests: a device registered in an earlier test (which the SDK does not register
 * again) stays. Registered as a field, it can fail each test on the integration checks' findings since its mark,
 * or reset before each test:
 *
 * <pre>{@code
 * @ExtendWith(CampaignMockExtension.class)
 * class RegistrationTest {
 *     @Test void registers(CampaignMockClient mock) {
 *         mock.waitForRegistration(Filters.of("app", KEY, "since", mock.lastMark()), 1, 30);
 *     }
 * }
 *
 * @RegisterExtension static CampaignMockExtension mock = new CampaignMockExtension().failingOnFindings("error");
 * }</pre>
 */
public class CampaignMockExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(CampaignMockExtension.class);
    private String failOn;
    private boolean waitForWindows = true;
    private boolean reset;

    /**
     * After each test, fails it when the integration checks found anything at or above {@code severity}
     * ({@code error}, {@code warning}, {@code info}) since its mark, once an open's window for its receive (10 s)
     * has passed.
     */
    public CampaignMockExtension failingOnFindings(String severity) {
        failOn = severity;
        return this;
    }

    /** As {@link #failingOnFindings(String)}, without waiting for an open's window. */
    public CampaignMockExtension failingOnFindingsWithoutWaiting(String severity) {
        waitForWindows = false;
        return failingOnFindings(severity);
    }

    /** Resets the mock (deleting its devices) before each test, then takes the mark. */
    public CampaignMockExtension resettingBeforeEachTest() {
        reset = true;
        return this;
    }

    private CampaignMockClient client(ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent("client", key -> {
                    CampaignMockClient client = CampaignMockClient.fromEnvironment();
                    client.checkVersion();
                    return client;
                }, CampaignMockClient.class);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        CampaignMockClient client = client(context);
        if (reset) client.reset();
        context.getStore(NAMESPACE).put("mark", client.mark());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        String mark = context.getStore(NAMESPACE).get("mark", String.class);
        if (failOn != null && mark != null) {
            client(context).requireNoFindings(failOn, Filters.of("since", mark), waitForWindows);
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == CampaignMockClient.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return client(context);
    }
}
