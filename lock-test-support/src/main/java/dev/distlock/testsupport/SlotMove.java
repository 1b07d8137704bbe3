package dev.distlock.testsupport;

import dev.distlock.testsupport.RedisClusterSetup.SlotMigration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One hash slot on its way from one master to another, moved step by step the way
 * {@code redis-cli --cluster reshard} moves it, so a test can act while the slot is half moved:
 * {@link RedisClusterSetup#beginMigration} opens it (the target IMPORTING, the owner MIGRATING),
 * {@link #moveKeys} and {@link #moveRemainingKeys} MIGRATE keys, {@link #finish()} tells every
 * master the new owner.
 *
 * <pre>{@code
 * SlotMove move = cluster.beginMigration(slot, target);
 * move.moveKeys("lock:{a}");          // this key now answers on the target, after an ASK redirect
 * ...                                 // clients meet ASK (and TRYAGAIN for keys split between nodes)
 * move.moveRemainingKeys(10, Duration.ZERO).finish();
 * }</pre>
 *
 * <p>A key that clients created on the target while the slot was open (a script writing a key it
 * did not declare, run there after an ASK redirect) makes MIGRATE answer BUSYKEY; the source's copy
 * then replaces it, as {@code redis-cli --cluster fix} (or {@code reshard --cluster-replace}) would,
 * and the keys of that batch are listed in {@link SlotMigration#replacedKeys()}.
 */
public final class SlotMove {

    private final int slot;
    private final RedisServer source;
    private final RedisServer target;
    private final List<RedisServer> masters;
    private final String targetId;
    private final List<String> replaced = new ArrayList<>();
    private int moved;

    SlotMove(int slot, RedisServer source, RedisServer target, List<RedisServer> masters) {
        if (source.port() == target.port()) {
            throw new IllegalArgumentException("Slot " + slot + " already lives on port " + target.port());
        }
        this.slot = slot;
        this.source = source;
        this.target = target;
        this.masters = List.copyOf(masters);
        this.targetId = target.query("CLUSTER", "MYID");
        // importing first: a client sent to the target by an ASK must find it ready
        expectOk(
                target,
                target.query("CLUSTER", "SETSLOT", String.valueOf(slot), "IMPORTING", source.query("CLUSTER", "MYID")));
        expectOk(source, source.query("CLUSTER", "SETSLOT", String.valueOf(slot), "MIGRATING", targetId));
    }

    public int slot() {
        return slot;
    }

    /** The slot's owner until {@link #finish()}. */
    public RedisServer source() {
        return source;
    }

    public RedisServer target() {
        return target;
    }

    /** Moves these keys to the target now; keys no longer on the source are skipped. */
    public SlotMove moveKeys(String... keys) {
        migrate(List.of(keys));
        return this;
    }

    /** Moves every key still in the slot on the source, {@code batchSize} at a time, {@code betweenBatches} apart. */
    public SlotMove moveRemainingKeys(int batchSize, Duration betweenBatches) {
        while (true) {
            String reply = source.query("CLUSTER", "GETKEYSINSLOT", String.valueOf(slot), String.valueOf(batchSize));
            if (reply.isEmpty()) {
                return this;
            }
            migrate(List.of(reply.split("\n")));
            pause(betweenBatches);
        }
    }

    /** Tells every master that the target owns the slot now (target first, then the old owner, then the rest). */
    public SlotMigration finish() {
        List<RedisServer> order = new ArrayList<>(List.of(target, source));
        masters.stream()
                .filter(n -> n.port() != target.port() && n.port() != source.port())
                .forEach(order::add);
        for (RedisServer node : order) {
            expectOk(node, node.query("CLUSTER", "SETSLOT", String.valueOf(slot), "NODE", targetId));
        }
        return new SlotMigration(slot, source, target, moved, List.copyOf(replaced));
    }

    private void migrate(List<String> keys) {
        String result = source.query(migrateCommand(keys, false));
        if (result.startsWith("-")
                && result.contains("BUSYKEY")) { // "-ERR Target instance replied with error: BUSYKEY ..."
            replaced.addAll(keys); // which of them collided only an ASKING client could ask the target
            result = source.query(migrateCommand(keys, true));
        }
        if (!result.startsWith("+OK") && !result.startsWith("+NOKEY")) {
            throw new IllegalStateException("MIGRATE of " + keys + " from port " + source.port() + " to "
                    + target.port() + " failed: " + result);
        }
        moved += keys.size();
    }

    private String[] migrateCommand(List<String> keys, boolean replace) {
        List<String> args =
                new ArrayList<>(List.of("MIGRATE", target.host(), String.valueOf(target.port()), "", "0", "5000"));
        if (replace) {
            args.add("REPLACE");
        }
        args.add("KEYS");
        args.addAll(keys);
        return args.toArray(String[]::new);
    }

    private static void expectOk(RedisServer node, String reply) {
        if (!reply.startsWith("+OK")) {
            throw new IllegalStateException("CLUSTER SETSLOT on port " + node.port() + " failed: " + reply);
        }
    }

    private static void pause(Duration duration) {
        if (duration.isZero()) {
            return;
        }
        try {
            Thread.sleep(
                    duration.toMillis()); // a deliberate dwell with the slot half moved, not a wait for a condition
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while migrating a slot", e);
        }
    }
}
