package dev.distlock.benchmark;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The garbage-collection pauses of this JVM that start within a measured window: when one call of the
 * window stalled, the longest pause says whether the JVM stood still meanwhile (a pause stops every
 * thread, whatever the library does). G1, the default collector, reports its stop-the-world pauses;
 * collectors that report whole concurrent cycles (ZGC, Shenandoah: "... Cycles") are left out.
 * A collection belongs to the window when the collector's count of collections passed its number
 * while the window was open. Notifications arrive shortly after each collection, so read {@link
 * #longestMillis} a while after the window closed.
 */
final class GcPauses implements Workload.Window, AutoCloseable {

    /** One collection as heard: which collector, its sequence number there, how long it took. */
    private record Pause(String collector, long id, long millis) {}

    private final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = (notification, handback) -> heard(notification);
    private final List<Pause> heard = new ArrayList<>(); // guarded by this
    /** Each collector's count of collections when the window opened and closed (a collection's id is its count). */
    private volatile Map<String, Long> countsAtOpen = Map.of();

    private volatile Map<String, Long> countsAtClose = Map.of();

    GcPauses() {
        for (GarbageCollectorMXBean gc : collectors) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(listener, null, null);
                emitters.add(emitter);
            }
        }
    }

    @Override
    public void opened() {
        countsAtClose = Map.of();
        countsAtOpen = counts();
    }

    @Override
    public void closed() {
        countsAtClose = counts();
    }

    /** The longest pause of the window, in ms (0 when there was none). */
    long longestMillis() {
        return inWindow().stream().mapToLong(Pause::millis).max().orElse(0);
    }

    /** How many pauses the window had. */
    int count() {
        return inWindow().size();
    }

    private synchronized List<Pause> inWindow() {
        Map<String, Long> open = countsAtOpen;
        Map<String, Long> close = countsAtClose;
        return heard.stream()
                .filter(p -> open.containsKey(p.collector()) && p.id() > open.get(p.collector()))
                .filter(p -> close.containsKey(p.collector()) && p.id() <= close.get(p.collector()))
                .toList();
    }

    private Map<String, Long> counts() {
        Map<String, Long> counts = new HashMap<>();
        collectors.forEach(gc -> counts.put(gc.getName(), gc.getCollectionCount()));
        return counts;
    }

    private void heard(Notification notification) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        if (info.getGcName().endsWith("Cycles")) {
            return; // a concurrent cycle's length, not a pause
        }
        GcInfo gc = info.getGcInfo();
        synchronized (this) {
            heard.add(new Pause(info.getGcName(), gc.getId(), gc.getDuration()));
        }
    }

    @Override
    public void close() {
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (ListenerNotFoundException e) {
                // not there: nothing to remove
            }
        }
    }
}
