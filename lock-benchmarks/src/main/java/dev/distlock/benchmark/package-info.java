/**
 * Side-by-side benchmark of distlock against its peers on one Redis.
 */
@NullMarked
package dev.distlock.benchmark;

import org.jspecify.annotations.NullMarked;
