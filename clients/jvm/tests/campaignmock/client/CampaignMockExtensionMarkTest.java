package campaignmock.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The JUnit 5 extension as registered by default: a mark before each test, nothing deleted; and, asked to,
 * a test failed on the integration checks' findings since its mark.
 */
@ExtendWith(CampaignMockExtension.class)
class CampaignMockExtensionMarkTest {
    @BeforeAll
    static void start() throws Exception {
        LiveServer.url();
    }

    @Test
    void eachTestCountsFromItsMarkAndNothingIsDeleted(CampaignMockClient mock) throws Exception {
        String mark = mock.lastMark();
        assertNotNull(mark);
        assertTrue(mark.matches("m[0-9]+"), mark);
        assertEquals(200, LiveServer.registerAndroid("ext-marked", "", "x"));
        assertEquals("ext-marked",
                mock.waitForRegistration(Filters.of("token", "ext-marked", "since", mark), 1, 10).get(0).registrationToken());
        // A later mark: the device stays, and a wait since it says what came before.
        String later = mock.mark();
        assertNotNull(mock.device("ext-marked"));
        CampaignMockException.TimedOut timeout = assertThrows(CampaignMockException.TimedOut.class,
                () -> mock.waitForRegistration(Filters.of("token", "ext-marked", "since", later), 1, 0.3));
        assertTrue(timeout.getMessage().contains("since mark " + later), timeout.getMessage());
    }

    @Test
    void failingOnFindingsFailsTheTestWithTheFindingsSinceItsMark() throws Exception {
        CampaignMockExtension extension = new CampaignMockExtension().failingOnFindingsWithoutWaiting("error");
        ExtensionContext context = FakeContext.create();
        extension.beforeEach(context);
        java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(LiveServer.url() + "/nms/mobile/1/registerAndroid.jssp"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("registrationToken=t&mobileAppUuid=ext-typo-key"))
                .build();
        assertEquals(404, java.net.http.HttpClient.newHttpClient()
                .send(request, java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode());
        AssertionError failure = assertThrows(AssertionError.class, () -> extension.afterEach(context));
        assertTrue(failure.getMessage().contains("registration-refused"), failure.getMessage());
        // The next test, with its own mark, is not failed by it.
        ExtensionContext next = FakeContext.create();
        extension.beforeEach(next);
        extension.afterEach(next);
    }
}
