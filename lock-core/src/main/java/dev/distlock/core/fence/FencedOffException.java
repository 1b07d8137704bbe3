package dev.distlock.core.fence;

/**
 * A write was refused by a fence: it carried a fencing token older than one the store had already
 * accepted for the same resource, so a newer holder of the lock has written it since. The holder that
 * presented the old token lost its lock (its lease ran out, for example during a long pause): roll back
 * its work and do not retry with the same token.
 */
public class FencedOffException extends RuntimeException {

    private final String resource;
    private final long token;
    private final long fence;

    public FencedOffException(String resource, long token, long fence) {
        super("Write to '" + resource + "' refused: it carries fencing token " + token
                + ", but the store has already accepted token " + fence
                + " from a newer holder of the lock. This holder's lock was lost (its lease ran out or was lost,"
                + " for example during a pause); roll back its work, and do not retry it with the old token");
        this.resource = resource;
        this.token = token;
        this.fence = fence;
    }

    /** The fenced resource. */
    public String resource() {
        return resource;
    }

    /** The token the refused write carried. */
    public long token() {
        return token;
    }

    /** The newest token the store had accepted for the resource. */
    public long fence() {
        return fence;
    }
}
