/**
 * The lease watchdog: one timer thread per client renews every watchdog lease. Internal: not part
 * of the API.
 */
@NullMarked
package dev.distlock.core.watchdog;

import org.jspecify.annotations.NullMarked;
