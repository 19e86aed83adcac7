package campaignmock.client;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The campaign-mock the tests talk to: {@code CAMPAIGN_MOCK_BINARY} (default {@code ../../.build/debug/campaign-mock},
 * from clients/jvm, where build.sh runs them), started once on a free port with an
 * in-memory store and stopped when the JVM exits. Its URL goes into {@code CAMPAIGN_MOCK_SERVER} (a system
 * property), as a CI job's environment or an instrumentation argument would hand it to the client.
 */
final class LiveServer {
    private static String url;

    private LiveServer() {}

    static synchronized String url() throws Exception {
        if (url != null) return url;
        // Absolute: a relative path would be looked up from the temporary folder the server starts in.
        String binary = Path.of(System.getenv().getOrDefault("CAMPAIGN_MOCK_BINARY", "../../.build/debug/campaign-mock"))
                .toAbsolutePath().normalize().toString();
        Path directory = Files.createTempDirectory("campaign-mock-jvm");
        Process server = new ProcessBuilder(binary, "serve", "--port", "0", "--in-memory").directory(directory.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::destroy));
        BufferedReader banner = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        Pattern address = Pattern.compile("http://127\\.0\\.0\\.1:\\d+");
        for (String line = banner.readLine(); line != null && url == null; line = banner.readLine()) {
            Matcher match = address.matcher(line);
            if (match.find()) url = match.group();
        }
        if (url == null) throw new IllegalStateException("campaign-mock (" + binary + ") did not print its URL");
        System.setProperty("CAMPAIGN_MOCK_SERVER", url);
        return url;
    }

    /** What the Android SDK sends for a registration; the status it was answered. */
    static int registerAndroid(String token, String userKey, String plan) throws Exception {
        return registerAndroid(token, userKey, plan, "plan");
    }

    /** The same, with the param named {@code param}. */
    static int registerAndroid(String token, String userKey, String plan, String param) throws Exception {
        String body = "registrationToken=" + token + "&mobileAppUuid=campaign-mock-demo-android&userKey=" + userKey
                + "&deviceModel=Pixel%208&osName=android"
                + "&additionalParams=%3CadditionalParameters%3E%3Cparam%20name%3D%22" + param + "%22%20value%3D%22" + plan
                + "%22%2F%3E%3C%2FadditionalParameters%3E";
        HttpRequest request = HttpRequest.newBuilder(URI.create(url() + "/nms/mobile/1/registerAndroid.jssp"))
                .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
    }
}
