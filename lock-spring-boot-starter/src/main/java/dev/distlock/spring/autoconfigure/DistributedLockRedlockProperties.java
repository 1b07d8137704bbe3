package dev.distlock.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;

/** Settings of the RedLock client used by {@code @DistributedLock(redlock = true)}, under {@code distlock.redlock.*}. */
public class DistributedLockRedlockProperties {

    /** Independent Redis masters (redis:// or rediss:// URIs, at least 3) that a RedLock must win a majority of. */
    private List<String> nodes = new ArrayList<>();

    public List<String> getNodes() {
        return nodes;
    }

    public void setNodes(List<String> nodes) {
        this.nodes = nodes;
    }
}
