package dev.distlock.core.internal.engine;

import java.util.List;

/**
 * The waiters of this client queued right behind a grant's first holder, in queue order. It travels
 * with the grant; only the grant's current holder reads or advances it.
 */
public final class FairCohort {
    public static final FairCohort NONE = new FairCohort(new String[0], new String[0]);

    final String[] owners;
    final String[] grantIds;
    /** How many of them the grant was offered to so far, whether they took it or had left. */
    int next;

    private FairCohort(String[] owners, String[] grantIds) {
        this.owners = owners;
        this.grantIds = grantIds;
    }

    /** The (owner, grant id) pairs of a release script's reply from index {@code from} on. */
    static FairCohort of(List<Object> reply, int from) {
        int n = (reply.size() - from) / 2;
        if (n <= 0) {
            return NONE;
        }
        String[] owners = new String[n];
        String[] grantIds = new String[n];
        for (int i = 0; i < n; i++) {
            owners[i] = (String) reply.get(from + 2 * i);
            grantIds[i] = (String) reply.get(from + 2 * i + 1);
        }
        return new FairCohort(owners, grantIds);
    }

    int size() {
        return owners.length;
    }

    /** The waiters the grant was offered to, "owner grant-id ...", for the release script; "" for none. */
    String served() {
        if (next == 0) {
            return "";
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < next; i++) {
            s.append(i == 0 ? "" : " ").append(owners[i]).append(' ').append(grantIds[i]);
        }
        return s.toString();
    }
}
