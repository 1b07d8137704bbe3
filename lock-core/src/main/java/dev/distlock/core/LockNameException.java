package dev.distlock.core;

/**
 * A lock name refused before Redis is touched, with what was wrong, so that callers can advise
 * without reading the message: missing (null or blank), too long (over
 * {@link LockClientOptions#maxKeyLength()}), or containing a character a name may not have.
 */
public class LockNameException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** What is wrong with the name. */
    public enum Problem {
        /** Null or blank. */
        MISSING,
        /** Longer than the client's maximum key length. */
        TOO_LONG,
        /** A character (or a leading '}') that a lock name may not contain. */
        NOT_ALLOWED
    }

    private final Problem problem;

    public LockNameException(Problem problem, String message) {
        super(message);
        this.problem = problem;
    }

    public Problem problem() {
        return problem;
    }
}
