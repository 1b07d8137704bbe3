package dev.distlock.core.testing;

import java.util.UUID;

/** Fresh lock names, so no test sees keys left behind by another. */
public final class Names {

    private Names() {}

    /** {@code hint} plus a random suffix; the hint keeps Redis keys readable when debugging. */
    public static String fresh(String hint) {
        return hint + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
