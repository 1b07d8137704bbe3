/**
 * Reading locks in Redis, read-only, on the application's Redis connection: the hashes lock-core's
 * scripts write, decoded for the check before a transaction commits and for the Actuator endpoint.
 * Internal to the starter.
 */
@NullMarked
package dev.distlock.spring.redis;

import org.jspecify.annotations.NullMarked;
