/**
 * Micrometer meters of lock acquisition, holding and lease loss.
 */
@NullMarked
package dev.distlock.spring.metrics;

import org.jspecify.annotations.NullMarked;
