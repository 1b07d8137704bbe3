package dev.distlock.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;

/** Leader election, under {@code distlock.leader.*}. */
public class DistributedLockLeaderProperties {

    /**
     * Roles this instance stands for as leader candidate, each a LeaderElection bean started with the context; the lease is distlock.watchdog-lease.
     */
    private List<String> roles = new ArrayList<>();

    public List<String> getRoles() {
        return roles;
    }

    public void setRoles(List<String> roles) {
        this.roles = roles;
    }
}
