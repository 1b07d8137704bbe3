/**
 * Real {@code redis-server} processes and topologies (Sentinel, Cluster) for tests, on free ports.
 */
@NullMarked
package dev.distlock.testsupport;

import org.jspecify.annotations.NullMarked;
