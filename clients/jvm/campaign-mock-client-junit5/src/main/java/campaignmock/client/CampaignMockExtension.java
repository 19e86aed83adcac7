package campaignmock.client;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5: resets campaign-mock before each test, and hands the test a {@link CampaignMockClient} as a
 * parameter. For JVM tests; Android instrumented tests run on JUnit 4 and use {@code CampaignMockRule}. The
 * server is {@code CAMPAIGN_MOCK_SERVER} (system property or environment variable), else
 * {@code http://127.0.0.1:8080} ({@link CampaignMockClient#fromEnvironment()}); its version is checked once.
 *
 * <pre>{@code
 * @ExtendWith(CampaignMockExtension.class)
 * class RegistrationTest {
 *     @Test void registers(CampaignMockClient mock) { … }
 * }
 * }</pre>
 */
public class CampaignMockExtension implements BeforeEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(CampaignMockExtension.class);

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
        client(context).reset();
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
