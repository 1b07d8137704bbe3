package dev.distlock.core.internal.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;

/**
 * An {@link AsyncAcquisition}'s turn at its lock's local {@link Gate}: it queues there first, then tries
 * in Redis with the permit, or takes a grant handed on with it, or (the permit's holder having lost its
 * lease) goes on without it. Where it stands says who passes the permit on and leaves the gate when the
 * acquisition stops. Its state is guarded by the acquisition's monitor, with the acquisition's own.
 */
final class GateTurn {

    /** Where an acquisition stands at its local gate. */
    enum Standing {
        /** Waiting for its turn. */
        QUEUED,
        /** Holding the permit, trying in Redis. */
        PERMIT,
        /** Holding the permit and a grant handed on with it, not yet a hold. */
        HANDED,
        /** Past the gate without the permit (its holder's lease ran out), or the wait ran out there. */
        PASSED,
        /** A hold took its place: released with the hold. */
        ATTACHED
    }

    private final AsyncAcquisition acquisition;
    private final Gate gate;
    private final AcquireSteps steps;
    private final Grants grants;
    private final AcquireRequest request;
    private final long deadline;
    private final ScheduledExecutorService timers;
    /** Its turn at the gate while it waits there. */
    private @Nullable CompletableFuture<LocalGates.Entry> entering;

    private Standing standing = Standing.QUEUED;

    GateTurn(
            AsyncAcquisition acquisition,
            Gate gate,
            AcquireSteps steps,
            Grants grants,
            AcquireRequest request,
            long deadline,
            ScheduledExecutorService timers) {
        this.acquisition = acquisition;
        this.gate = gate;
        this.steps = steps;
        this.grants = grants;
        this.request = request;
        this.deadline = deadline;
        this.timers = timers;
    }

    /** Queues at the gate; its turn (or the wait's end there) goes on in {@link #entered}. */
    void start() {
        CompletableFuture<LocalGates.Entry> entry = gate.enterAsync(deadline, request.lease(), timers);
        boolean stopped;
        synchronized (acquisition) {
            stopped = acquisition.finished;
            entering = entry;
        }
        if (stopped) {
            entry.cancel(false); // leaves the queue; a permit it got meanwhile is passed on in entered()
        }
        entry.whenComplete((passed, error) -> {
            if (passed != null) {
                entered(passed);
            }
        });
    }

    /** Its turn at the local gate came (or the wait there ran out): go on in Redis, or finish. */
    private void entered(LocalGates.Entry entry) {
        LocalGates.Pass pass = entry.pass();
        boolean stopped;
        synchronized (acquisition) {
            stopped = acquisition.finished;
            if (!stopped) {
                standing = switch (pass) {
                    case PERMIT -> Standing.PERMIT;
                    case HANDED_ON -> Standing.HANDED;
                    default -> Standing.PASSED;
                };
            }
        }
        if (stopped) {
            passOn(entry); // finished() already left the gate
            return;
        }
        try {
            switch (pass) {
                // Off the thread that handed on or timed out: that thread may be inside another caller's unlock
                // (whose events the starter attributes by thread) or be the client's timer; the caller's own
                // code runs when the result completes.
                case TIMEOUT -> steps.offThread(acquisition::timeOut);
                case HANDED_ON -> steps.offThread(() -> takeHandedOn(entry));
                default -> acquisition.attempt();
            }
        } catch (RuntimeException e) {
            acquisition.result.completeExceptionally(e);
        }
    }

    /** Turns a grant handed on at the gate into this caller's hold, unless it stopped meanwhile. */
    private void takeHandedOn(LocalGates.Entry entry) {
        boolean stopped;
        synchronized (acquisition) {
            stopped = acquisition.finished;
        }
        if (stopped) {
            passOn(entry);
            steps.leave(request, gate);
            return;
        }
        Hold hold = grants.handedOn(request, entry.baton());
        if (hold != null) {
            acquisition.deliver(hold);
            return;
        }
        // Too close to its lease's end to use (given back): try in Redis, holding the permit.
        synchronized (acquisition) {
            stopped = acquisition.finished;
            standing = Standing.PERMIT;
        }
        if (stopped) {
            gate.exit();
            steps.leave(request, gate);
        } else {
            acquisition.attempt();
        }
    }

    /** What it got at the gate after it stopped: the permit (with a handed-on grant) goes to the next waiter. */
    private void passOn(LocalGates.Entry entry) {
        if (entry.pass() == LocalGates.Pass.HANDED_ON && !gate.handOn(entry.baton())) {
            grants.giveBack(entry.baton());
            gate.exit();
        } else if (entry.pass() == LocalGates.Pass.PERMIT) {
            gate.exit();
        }
    }

    /**
     * Gives the place at the gate to {@code hold}, the acquisition's result; call holding the acquisition's
     * monitor. A handed-on grant is this acquisition's to pass on even when it stopped meanwhile: attached,
     * the hold's give-back passes the permit on.
     */
    void attach(Hold hold) {
        if (standing == Standing.HANDED || (!acquisition.finished && standing != Standing.QUEUED)) {
            steps.attach(hold, gate, standing != Standing.PASSED);
            standing = Standing.ATTACHED;
        }
    }

    /** Where it stands now; call holding the acquisition's monitor, as it stops. */
    Standing standing() {
        return standing;
    }

    /** The acquisition stopped standing at {@code stood}: leave the queue, or pass the permit on and leave the gate. */
    void stopped(Standing stood) {
        CompletableFuture<LocalGates.Entry> pending;
        synchronized (acquisition) {
            pending = entering;
        }
        // HANDED: takeHandedOn passes it on; ATTACHED: the hold's release does.
        if (stood == Standing.QUEUED && pending != null) {
            pending.cancel(false); // leaves the queue; a permit it got meanwhile is passed on in entered()
        }
        if (stood == Standing.PERMIT) {
            gate.exit();
        }
        if (stood == Standing.QUEUED || stood == Standing.PERMIT || stood == Standing.PASSED) {
            steps.leave(request, gate);
        }
    }
}
