/**
 * Commit only while held: a transaction begun inside a lock's work checks, just before it commits, that
 * the lock is still held (this instance's lease clock, then Redis), and rolls back (or reports) when it is
 * not. Registered on every Spring transaction manager as a {@code TransactionExecutionListener} (Spring
 * Framework 6.1+), which adds the check when a transaction begins inside the work. Internal to the starter.
 */
@NullMarked
package dev.distlock.spring.transaction;

import org.jspecify.annotations.NullMarked;
