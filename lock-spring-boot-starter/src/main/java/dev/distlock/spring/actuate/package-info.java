/**
 * The {@code distributedlocks} Actuator endpoint and the lock health indicator.
 */
@NullMarked
package dev.distlock.spring.actuate;

import org.jspecify.annotations.NullMarked;
