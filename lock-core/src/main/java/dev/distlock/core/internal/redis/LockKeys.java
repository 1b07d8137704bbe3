package dev.distlock.core.internal.redis;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockNameException;
import java.util.Objects;

/**
 * Redis keys of one lock. The name is the hash tag ({@code <prefix>{name}}) and every derived key
 * and channel starts with the same tag, so multi-key scripts stay in one Redis Cluster slot. Only
 * the lock key is kept; the others are made when asked for (a client may hold 100,000 locks).
 *
 * @param lock the lock's own key, {@code <prefix>{name}}
 */
public record LockKeys(String lock) {

    public static LockKeys of(String prefix, String name) {
        return new LockKeys(prefix + "{" + name + "}");
    }

    /** The fencing counter, {@code <lock>:fence}. */
    public String fence() {
        return lock + ":fence";
    }

    /**
     * A read/write lock's writers that wait for it, {@code <lock>:writers}: a hash of owner id -> server
     * time in ms until which the mark holds new readers back (see {@code rw-write-acquire.lua}).
     */
    public String writers() {
        return lock + ":writers";
    }

    /** A semaphore's number of permits, {@code <lock>:permits}: kept as long as its fencing counter. */
    public String permits() {
        return lock + ":permits";
    }

    /**
     * A fair semaphore's waiters, {@code <lock>:waiters}: a hash of when each asked first and until when
     * its place holds (see {@code sem-acquire.lua}).
     */
    public String waiters() {
        return lock + ":waiters";
    }

    /** The wake-up channel, {@code <lock>:channel}. */
    public String channel() {
        return lock + ":channel";
    }

    /**
     * The short-lived note a last release (or a force release) leaves, so that the same request run
     * again answers as it did the first time: {@code <lock>:released:<suffix>}.
     */
    public String note(String suffix) {
        return lock + ":released:" + suffix;
    }

    /**
     * The short-lived note of a waiter's last give-up, so that the same give-up run again changes
     * nothing: {@code <lock>:released:~left:<suffix>} (a note as a release's, named apart from them).
     */
    public String leaveNote(String suffix) {
        return note("~left:" + suffix);
    }

    /** The fair lock's list of waiting owners, oldest first. */
    public String queue() {
        return lock + ":queue";
    }

    /** The fair lock's sorted set of waiter deadlines (owner -> server time in ms). */
    public String timeouts() {
        return lock + ":timeouts";
    }

    /**
     * The fair lock's hash of what each queued waiter asked for (owner -> "grant id, lease in ms"), so
     * that a release can grant the lock to the next waiter itself.
     */
    public String waiting() {
        return lock + ":waiting";
    }

    /** Prefix of the fair lock's per-waiter channels: a waiter listens on prefix + owner. */
    public String waiterChannelPrefix() {
        return lock + ":channel:";
    }

    /** Checks a key prefix: no control characters, no '{' or '}' (the lock name is the hash tag). */
    public static String requirePrefix(String keyPrefix) {
        Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
        for (int i = 0; i < keyPrefix.length(); i++) {
            if (Character.isISOControl(keyPrefix.charAt(i))) {
                throw new IllegalArgumentException("keyPrefix " + abbreviate(keyPrefix) + " contains the control"
                        + " character " + String.format("U+%04X", (int) keyPrefix.charAt(i)) + " at index " + i
                        + ": it would reach every Redis key and log line; use printable characters");
            }
        }
        if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("keyPrefix '" + keyPrefix + "' must not contain '{' or '}': the lock"
                    + " name is wrapped in braces as the Redis Cluster hash tag");
        }
        return keyPrefix;
    }

    /**
     * Checks a lock name before it becomes part of a key: not null or blank, at most
     * {@link LockClientOptions#maxKeyLength()} characters, none of the characters {@link #problem}
     * refuses (they would otherwise reach Redis keys, logs and metrics). Any other character is
     * fine: the name is only ever appended to the prefix inside braces and passed to scripts as a
     * key, never spliced into a command or script text.
     */
    public static String requireName(String name, LockClientOptions options) {
        if (name == null) {
            throw new LockNameException(LockNameException.Problem.MISSING, "lock name must not be null");
        }
        if (name.isBlank()) {
            throw new LockNameException(LockNameException.Problem.MISSING, "lock name must not be blank");
        }
        if (name.charAt(0) == '}') {
            // <prefix>{}...} has an empty hash tag: Redis Cluster would then hash each derived key on its own.
            throw new LockNameException(
                    LockNameException.Problem.NOT_ALLOWED,
                    "lock name " + abbreviate(name) + " must not start with '}': the name is the"
                            + " Redis Cluster hash tag of the lock's keys, and a leading '}' would leave that tag empty");
        }
        int max = options.maxKeyLength();
        if (name.length() > max) {
            throw new LockNameException(
                    LockNameException.Problem.TOO_LONG,
                    "lock name " + abbreviate(name) + " is " + name.length() + " characters long, over the limit of "
                            + max + " (LockClientOptions.maxKeyLength)");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                i++; // a well-formed pair: any supplementary character is fine
                continue;
            }
            String problem = problem(c);
            if (problem != null) {
                throw new LockNameException(
                        LockNameException.Problem.NOT_ALLOWED,
                        "lock name " + abbreviate(name) + " contains " + problem + " "
                                + String.format("U+%04X", (int) c) + " at index " + i
                                + "; lock names must be printable text that encodes to UTF-8 unchanged: strip or encode such input first");
            }
        }
        return name;
    }

    /**
     * What is wrong with {@code c} in a name, or {@code null}: control characters (a \n or \0 from
     * request data), lone surrogates (UTF-8 turns them into '?', so two names would share one lock),
     * and invisible format characters such as bidi overrides and line separators (two names that
     * look alike in logs and metrics would be different locks).
     */
    private static String problem(char c) {
        if (Character.isISOControl(c)) {
            return "the control character";
        }
        if (Character.isSurrogate(c)) {
            return "the unpaired surrogate";
        }
        int type = Character.getType(c);
        if (type == Character.FORMAT || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR) {
            return "the invisible or bidi control character";
        }
        return null;
    }

    /**
     * The name quoted for an error message: at most 40 characters, control characters escaped, so
     * the message itself cannot carry a forged log line or a megabyte of input.
     */
    public static String abbreviate(String name) {
        String head = name.length() > 40 ? name.substring(0, 40) : name;
        StringBuilder sb = new StringBuilder("'");
        head.chars()
                .forEach(c ->
                        sb.append(problem((char) c) != null ? String.format("\\u%04X", c) : String.valueOf((char) c)));
        return sb.append(name.length() > 40 ? "...'" : "'").toString();
    }
}
