package dev.distlock.sample;

/** How a booking ended. A busy lock is not a result: it is a {@code LockAcquisitionException}. */
public enum BookingResult {

    /** One unit was taken off the stock. */
    BOOKED,

    /** There was no stock left; nothing changed. */
    SOLD_OUT
}
