package dev.distlock.core;

/**
 * Redis keys of one lock. The name is the hash tag ({@code <prefix>{name}}) and every derived key
 * and channel starts with the same tag, so multi-key scripts stay in one Redis Cluster slot.
 */
record LockKeys(String lock, String fence, String channel) {

    static LockKeys of(String prefix, String name) {
        String lock = prefix + "{" + name + "}";
        return new LockKeys(lock, lock + ":fence", lock + ":channel");
    }

    /** The fair lock's list of waiting owners, oldest first. */
    String queue() {
        return lock + ":queue";
    }

    /** The fair lock's sorted set of waiter deadlines (owner -> server time in ms). */
    String timeouts() {
        return lock + ":timeouts";
    }

    /** Prefix of the fair lock's per-waiter channels: a waiter listens on prefix + owner. */
    String waiterChannelPrefix() {
        return lock + ":channel:";
    }

    static String requireName(String name) {
        if (name == null) {
            throw new IllegalArgumentException("lock name must not be null");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be blank");
        }
        return name;
    }
}
