package campaignmock.client;

/** A failure of the client, saying what to do about it. */
public class CampaignMockException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;

    public CampaignMockException(String message, int status) {
        super(message);
        this.status = status;
    }

    /** The HTTP status the server answered, or 0 when it could not be reached. */
    public int status() {
        return status;
    }

    /** A wait that ended before enough arrived (the server answered {@code 408}). */
    public static final class TimedOut extends CampaignMockException {
        private static final long serialVersionUID = 1L;

        public TimedOut(String message) {
            super(message, 408);
        }
    }
}
