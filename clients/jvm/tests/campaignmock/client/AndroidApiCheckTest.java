package campaignmock.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * android-api-check.sh, which build.sh runs on the client's jars, fails on a class that uses what Android API
 * 24 lacks although javac --release 8 takes it, and passes the client as built.
 */
class AndroidApiCheckTest {
    private static final Path CHECK = Paths.get("./android-api-check.sh");

    @Test
    void catchesAPlantedViolation(@TempDir Path directory) throws Exception {
        Path source = directory.resolve("Planted.java");
        Files.write(source, ("public class Planted {\n"
                + "    public static String now() { return java.time.Instant.now() + String.join(\",\", \"a\", \"b\"); }\n"
                + "    public static Runnable fine() { return () -> System.out.println(\"lambdas are rewritten\"); }\n"
                + "}\n").getBytes(StandardCharsets.UTF_8));
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null,
                "--release", "8", "-d", directory.toString(), source.toString()));
        Path jar = directory.resolve("planted.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("Planted.class"));
            out.write(Files.readAllBytes(directory.resolve("Planted.class")));
        }
        Result planted = check(jar);
        assertEquals(1, planted.status, planted.output);
        assertTrue(planted.output.contains("Planted.class uses java/time/Instant.now:()Ljava/time/Instant;: Android API 26"),
                planted.output);
        assertTrue(planted.output.contains("Planted.class uses java/lang/String.join:"), planted.output);
        assertTrue(!planted.output.contains("LambdaMetafactory"), planted.output);
    }

    @Test
    void passesTheClientAndTheJUnit4Rule() throws Exception {
        for (String name : new String[] {"campaign-mock-client", "campaign-mock-client-junit4"}) {
            Result result = check(Paths.get("build", name + "-" + CampaignMockClient.VERSION + ".jar"));
            assertEquals(0, result.status, result.output);
        }
    }

    private static final class Result {
        final int status;
        final String output;

        Result(int status, String output) {
            this.status = status;
            this.output = output;
        }
    }

    private static Result check(Path jar) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(CHECK.toString(), jar.toString()).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(process.waitFor(), output);
    }
}
