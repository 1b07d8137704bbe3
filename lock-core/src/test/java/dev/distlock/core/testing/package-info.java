/**
 * lock-core's test helpers, apart from the tests: child-JVM workers ({@code *Worker}), the history and
 * exclusion checkers, recording listeners, the RedLock nodes, fault helpers (reply loss, relayed clients),
 * owners on threads of their own, and the adapters onto lock-test-support's shared contract. Script-test
 * support ({@code ScriptTestSupport}, {@code RedisProbe}) stays beside the script tests.
 */
package dev.distlock.core.testing;
