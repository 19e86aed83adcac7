package campaignmock.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A fault rule (docs/ci.md, "Fault injection"): make the next requests of an endpoint fail the way a real
 * server or network would. The presets give the SDK outcomes tests ask for most.
 */
public final class FaultRule {
    final Map<String, Object> fields = new LinkedHashMap<>();

    /** {@code registration-ios}, {@code registration-android}, {@code tracking}, {@code soap}, {@code health} or {@code any}. */
    public FaultRule(String endpoint) {
        fields.put("endpoint", endpoint);
    }

    public FaultRule id(String id) { fields.put("id", id); return this; }
    public FaultRule appKey(String key) { fields.put("appKey", key); return this; }
    public FaultRule token(String token) { fields.put("token", token); return this; }
    public FaultRule status(int status, String body) { fields.put("status", status); fields.put("body", body); return this; }
    public FaultRule delayMs(int milliseconds) { fields.put("delayMs", milliseconds); return this; }
    public FaultRule drop() { fields.put("drop", true); return this; }
    public FaultRule reset() { fields.put("reset", true); return this; }
    public FaultRule after(int matches) { fields.put("after", matches); return this; }
    public FaultRule times(int times) { fields.put("times", times); return this; }
    public FaultRule probability(double probability, int seed) { fields.put("probability", probability); fields.put("seed", seed); return this; }

    /** The legacy iOS SDK reports {@code FailureUnknownUUID}. */
    public static FaultRule unknownIntegrationKey(String key, String platform) {
        return new FaultRule("registration-" + platform).status(404, "Unknown integration key (mobileAppUuid): " + key);
    }

    /** A server error with {@code reason}: a failed registration for the AEP extension. */
    public static FaultRule serverError(String endpoint, int status, String reason) {
        return new FaultRule(endpoint).status(status, reason);
    }

    /** The connection closes without an answer. */
    public static FaultRule connectionDropped(String endpoint) {
        return new FaultRule(endpoint).drop();
    }

    /** Every answer waits {@code milliseconds} ({@code campaignclassic.timeout} is 30 s by default). */
    public static FaultRule slow(String endpoint, int milliseconds) {
        return new FaultRule(endpoint).delayMs(milliseconds);
    }

    /** {@code 503} on a share of the requests, the same ones in every run with the same seed. */
    public static FaultRule flaky(String endpoint, double probability, int seed) {
        return new FaultRule(endpoint).status(503, "Service Unavailable").probability(probability, seed);
    }
}
