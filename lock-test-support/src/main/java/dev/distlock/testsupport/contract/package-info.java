/**
 * The shared lock contract: {@link dev.distlock.testsupport.contract.LockContract}, an abstract JUnit 5 suite
 * written against {@link dev.distlock.testsupport.contract.LockMaker}, which each topology's test implements
 * (standalone Redis, Redis Cluster, RedLock, and local mode). It lives here, apart from lock-core, because
 * lock-core's tests depend on this module: the adapters onto lock-core's clients are in those tests.
 */
@NullMarked
package dev.distlock.testsupport.contract;

import org.jspecify.annotations.NullMarked;
