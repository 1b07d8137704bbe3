package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OccupancyTest {

    @Test
    void aSecondHolderInsideIsAViolation() {
        Occupancy.Slot slot = Occupancy.local(1).slot("k");
        Tally first = new Tally();
        Tally second = new Tally();
        long now = System.nanoTime();
        slot.enter(1, now, now, first, true);
        slot.enter(2, now, now, second, true);
        slot.leave(2);
        slot.leave(1);
        assertThat(first.violations).isZero();
        assertThat(second.violations).isEqualTo(1);
    }

    @Test
    void handOffIsFromReleaseToGrantOfAHolderThatWaited() {
        Occupancy.Slot slot = Occupancy.local(1).slot("k");
        Tally tally = new Tally();
        long holder = Occupancy.Holders.of(0);
        long waiter = Occupancy.Holders.of(1);
        long asked = System.nanoTime();
        slot.enter(holder, asked, asked, tally, true);
        slot.leave(holder);
        long granted = System.nanoTime() + 2_000_000;
        slot.enter(waiter, asked, granted, tally, true);
        slot.leave(waiter);
        assertThat(tally.handOff.count()).isEqualTo(1);
        assertThat(tally.handOff.quantile(1.0)).isBetween(1_900_000L, 2_100_000_000L);
        // Same process: not a cross-JVM hand-off.
        assertThat(tally.remoteHandOff.count()).isZero();
    }

    @Test
    void reTakingOwnReleaseOrArrivingAfterItIsNoHandOff() {
        Occupancy.Slot slot = Occupancy.local(1).slot("k");
        Tally tally = new Tally();
        long holder = Occupancy.Holders.of(0);
        long now = System.nanoTime();
        slot.enter(holder, now, now, tally, true);
        slot.leave(holder);
        slot.enter(holder, now, System.nanoTime(), tally, true);
        slot.leave(holder);
        long late = System.nanoTime();
        slot.enter(Occupancy.Holders.of(1), late, late, tally, true);
        slot.leave(Occupancy.Holders.of(1));
        assertThat(tally.handOff.count()).isZero();
    }

    @Test
    void twoMappingsOfOneFileShareTheCount(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("occupancy.bin");
        Files.createFile(file);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(Occupancy.bytesFor(1));
        }
        // As two child JVMs would: each maps the file on its own.
        Occupancy.Slot a = Occupancy.mapped(file).slot("shared");
        Occupancy.Slot b = Occupancy.mapped(file).slot("shared");
        Tally ta = new Tally();
        Tally tb = new Tally();
        long now = System.nanoTime();
        a.enter(1, now, now, ta, true);
        b.enter(2, now, now, tb, true);
        b.leave(2);
        a.leave(1);
        assertThat(tb.violations).isEqualTo(1);
        long asked = System.nanoTime();
        a.enter(1, asked, asked, ta, true);
        a.leave(1);
        b.enter(2, asked, System.nanoTime(), tb, true);
        b.leave(2);
        assertThat(tb.handOff.count()).isEqualTo(1);
    }

    @Test
    void refusesMoreKeysThanItHasRoomFor() {
        Occupancy occupancy = Occupancy.local(1);
        occupancy.slot("a");
        assertThat(occupancy.slot("a")).isSameAs(occupancy.slot("a"));
        assertThatThrownBy(() -> occupancy.slot("b"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("room for 1 keys");
    }
}
