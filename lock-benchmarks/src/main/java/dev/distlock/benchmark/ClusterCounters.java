package dev.distlock.benchmark;

import io.lettuce.core.api.sync.RedisCommands;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The counters of every master of a Redis Cluster as a {@link Workload} window opens and closes: each
 * node's {@code INFO commandstats} and {@code INFO cpu} ({@link CommandStats}), and the pub/sub messages
 * it got from other nodes over the cluster bus ({@code CLUSTER INFO}: a PUBLISH is broadcast to every
 * node, an SPUBLISH goes only to the replicas of its shard).
 */
final class ClusterCounters implements Workload.Window {

    private final List<RedisCommands<String, String>> nodes;
    private List<Node> before;
    private List<Node> after;

    ClusterCounters(List<RedisCommands<String, String>> nodes) {
        this.nodes = nodes;
    }

    /** One node's counters: commands and CPU, and the pub/sub messages it received over the bus. */
    record Node(CommandStats.Snapshot stats, long busReceived) {

        /** PUBLISH and SPUBLISH this node ran, scripts' included. */
        long published() {
            return stats.calls().getOrDefault("publish", 0L) + stats.calls().getOrDefault("spublish", 0L);
        }
    }

    @Override
    public void opened() {
        before = sample();
    }

    @Override
    public void closed() {
        after = sample();
    }

    private List<Node> sample() {
        return nodes.stream()
                .map(n -> new Node(CommandStats.snapshot(n), busReceived(n.clusterInfo())))
                .toList();
    }

    /** {@code cluster_stats_messages_publish_received} + {@code ..._publishshard_received} (absent when 0). */
    static long busReceived(String clusterInfo) {
        return clusterInfo
                .lines()
                .filter(l -> l.startsWith("cluster_stats_messages_publish_received:")
                        || l.startsWith("cluster_stats_messages_publishshard_received:"))
                .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim()))
                .sum();
    }

    /** Every node's counters at the window's start, summed, as one server's. */
    CommandStats.Snapshot before() {
        return sum(before);
    }

    /** Every node's counters at the window's end, summed. */
    CommandStats.Snapshot after() {
        return sum(after);
    }

    /** The pub/sub messages of the window, node by node. */
    RunResult.ClusterMessages messages() {
        long[] handled = new long[nodes.size()];
        long published = 0;
        long bus = 0;
        for (int i = 0; i < handled.length; i++) {
            long ran = after.get(i).published() - before.get(i).published();
            long received = after.get(i).busReceived() - before.get(i).busReceived();
            handled[i] = ran + received;
            published += ran;
            bus += received;
        }
        return new RunResult.ClusterMessages(published, bus, handled);
    }

    private static CommandStats.Snapshot sum(List<Node> sample) {
        Map<String, Long> calls = new HashMap<>();
        long cpu = 0;
        for (Node n : sample) {
            n.stats().calls().forEach((name, count) -> calls.merge(name, count, Long::sum));
            cpu += n.stats().cpuMicros();
        }
        return new CommandStats.Snapshot(calls, cpu);
    }
}
