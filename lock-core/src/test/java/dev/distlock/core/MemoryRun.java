package dev.distlock.core;

import dev.distlock.core.internal.memory.MemoryRedis;
import dev.distlock.core.internal.memory.MemoryRedis.Entry;
import dev.distlock.core.internal.memory.Subscriber;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory side of {@link DifferentialScripts}: a script call run on a MemoryRedis loaded with the
 * state its KEYS had in Redis, on a clock frozen at the Redis server's TIME read before.
 */
final class MemoryRun implements AutoCloseable {

    private final AtomicLong clock = new AtomicLong();
    private final MemoryRedis memory = new MemoryRedis(clock::get);

    ScriptOutcome run(ScriptCall call, boolean integer, Map<String, Entry> before, long clockMicros)
            throws InterruptedException {
        clock.set(clockMicros);
        String[] keys = call.keys().toArray(String[]::new);
        String[] args = call.args().toArray(String[]::new);
        memory.load(before, keys);
        List<String> heard = Collections.synchronizedList(new ArrayList<>());
        Subscriber subscriber = memory.subscriber((channel, message) -> heard.add(channel + " " + message), c -> {});
        for (String channel : candidateChannels(call, before)) {
            subscriber.subscribe(channel).join();
        }
        Object reply = null;
        Throwable error = null;
        try {
            reply = (integer ? memory.integer(call.script(), keys, args) : memory.array(call.script(), keys, args))
                    .get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            error = e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            error = e;
        }
        subscriber.close();
        memory.exists("barrier").join(); // queued after the script: its messages went out before this runs
        return new ScriptOutcome(reply, error, memory.dump(keys), List.copyOf(heard));
    }

    /**
     * Every ARGV, and every ARGV followed by an owner named in ARGV or in a list key (a fair waiter's own
     * channel): the channels a lock script may publish on.
     */
    private static Set<String> candidateChannels(ScriptCall call, Map<String, Entry> before) {
        Set<String> owners = new LinkedHashSet<>(call.args());
        before.values().stream()
                .filter(e -> e.type().equals("list"))
                .forEach(e -> ((List<?>) e.value()).forEach(v -> owners.add((String) v)));
        Set<String> channels = new LinkedHashSet<>(call.args());
        for (String arg : call.args()) {
            owners.forEach(owner -> channels.add(arg + owner));
        }
        return channels;
    }

    @Override
    public void close() {
        memory.close();
    }
}
