/**
 * The sample application: annotated services under distributed locks.
 */
@NullMarked
package dev.distlock.sample;

import org.jspecify.annotations.NullMarked;
