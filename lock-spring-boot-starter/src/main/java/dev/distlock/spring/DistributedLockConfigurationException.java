package dev.distlock.spring;

/**
 * Start-up failure caused by lock configuration: a bad {@code @DistributedLock} attribute, a bad
 * {@code distlock.*} property or an unsupported Redis set-up. Says what is wrong and what to do.
 */
public class DistributedLockConfigurationException extends RuntimeException {

    private final String action;

    public DistributedLockConfigurationException(String description, String action) {
        this(description, action, null);
    }

    public DistributedLockConfigurationException(String description, String action, Throwable cause) {
        super(description + ". " + action, cause);
        this.action = action;
    }

    /** What to change to fix it. */
    public String getAction() {
        return action;
    }

    /** What is wrong. */
    public String getDescription() {
        String message = getMessage();
        return message.substring(0, message.length() - action.length() - 2);
    }
}
