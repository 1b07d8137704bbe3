package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/** Sends a signal to a process of this machine, as faults need: SIGSTOP freezes it, SIGCONT resumes it. */
public final class Signals {

    private Signals() {}

    /**
     * Runs {@code kill -<signal> <pid>} and waits (at most 30 s) for it.
     *
     * @param signal the signal's name without "SIG", such as {@code STOP} or {@code CONT}
     * @throws IllegalStateException when kill failed (no such process) or did not end in time
     */
    public static void send(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(pid))
                    .inheritIO()
                    .start();
            if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
