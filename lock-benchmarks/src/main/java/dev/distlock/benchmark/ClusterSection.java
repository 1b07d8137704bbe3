package dev.distlock.benchmark;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The report's part on scenario 11, Redis Cluster: where each library's wake-ups went, node by node.
 * Each cell is the median over the rounds with the lowest and highest round in brackets.
 */
final class ClusterSection {

    private ClusterSection() {}

    static void append(StringBuilder md, BenchmarkConfig config, List<RunResult> runs) {
        Scenario s = Scenario.CLUSTER_CONTENDED;
        List<Library> libraries =
                config.libraries().stream().filter(s::runsWith).toList();
        if (!config.scenarios().contains(s) || libraries.isEmpty()) {
            return;
        }
        int masters = runs.stream()
                .filter(r -> r.scenario() == s && r.cluster() != null)
                .mapToInt(r -> r.cluster().handledPerNode().length)
                .max()
                .orElse(0);
        md.append("\n## Redis Cluster\n\n");
        md.append(s.label(config))
                .append(
                        ": three masters started by the benchmark, no replicas (two cores do not carry six "
                                + "servers), the keys spread evenly over the masters; two clients, the workers split between "
                                + "them, each op on a key picked at random. Wake-ups: PUBLISH and SPUBLISH the masters ran "
                                + "(the release scripts'), per op. Messages per wake-up, node by node: each master's own wake-ups "
                                + "plus those it got from another node over the cluster bus (`CLUSTER INFO` "
                                + "cluster_stats_messages_publish_received and _publishshard_received), divided by all wake-ups "
                                + "of the cluster; \"other nodes\" is the part the bus carried, what nodes that do not own a lock's "
                                + "slot handled for it. A PUBLISH is broadcast to every node (other nodes: masters - 1); an "
                                + "SPUBLISH stays on the shard that owns its channel's slot (0). Redis CPU: of all masters.\n\n");
        md.append("| library | ops/s | p99 ms | Redis CPU µs/op | wake-ups/op |");
        for (int i = 1; i <= masters; i++) {
            md.append(" node ").append(i).append(" messages/wake-up |");
        }
        md.append(" other nodes' messages/wake-up |\n|---|---:|---:|---:|---:|")
                .append("---:|".repeat(masters))
                .append("---:|\n");
        for (Library l : libraries) {
            List<RunResult> rs = runs.stream()
                    .filter(r -> r.scenario() == s && r.library() == l && r.ok() && r.cluster() != null)
                    .toList();
            if (rs.isEmpty()) {
                continue;
            }
            md.append("| ").append(l.label).append(" | ");
            md.append(cell(rs, RunResult::opsPerSecond, Spread::ops)).append(" | ");
            md.append(Spread.of(rs.stream().map(r -> (double) r.p99Nanos()).toList())
                            .format(Spread::ms))
                    .append(" | ");
            md.append(cell(rs, RunResult::redisCpuMicrosPerOp, Spread::oneDecimal))
                    .append(" | ");
            md.append(cell(rs, r -> r.cluster().published() / (double) r.measuredOps(), Spread::twoDecimals))
                    .append(" | ");
            for (int i = 0; i < masters; i++) {
                int node = i;
                md.append(cell(rs, r -> r.cluster().nodePerRelease(node), Spread::twoDecimals))
                        .append(" | ");
            }
            md.append(cell(rs, r -> r.cluster().otherNodesPerRelease(), Spread::twoDecimals))
                    .append(" |\n");
        }
    }

    private static String cell(
            List<RunResult> rs, ToDoubleFunction<RunResult> f, java.util.function.DoubleFunction<String> format) {
        return Spread.of(rs.stream().map(r -> f.applyAsDouble(r)).toList()).format(format);
    }
}
