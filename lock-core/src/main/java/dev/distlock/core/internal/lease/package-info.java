/**
 * Leases: the lease clock of one hold, the keeper that renews watchdog leases and reports their
 * loss, and the one timer per client that drives renewals. Internal: not exported, not part of the
 * API.
 */
@NullMarked
package dev.distlock.core.internal.lease;

import org.jspecify.annotations.NullMarked;
