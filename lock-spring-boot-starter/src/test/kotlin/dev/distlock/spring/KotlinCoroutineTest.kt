package dev.distlock.spring

import dev.distlock.core.LockAcquisitionException
import dev.distlock.core.LockClient
import dev.distlock.core.LockHandle
import dev.distlock.spring.HoldChecks.lockedInRedis
import dev.distlock.spring.HoldChecks.tryElsewhere
import dev.distlock.spring.annotation.DistributedLock
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration
import dev.distlock.spring.autoconfigure.DistributedLockLocalAutoConfiguration
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration
import dev.distlock.spring.metrics.LockMetrics
import dev.distlock.testsupport.BehaviourTest
import dev.distlock.testsupport.RedisExtension
import dev.distlock.testsupport.RedisServer
import io.lettuce.core.RedisURI
import io.micrometer.core.instrument.MeterRegistry
import io.micrometer.core.instrument.simple.SimpleMeterRegistry
import java.time.Duration
import java.util.Optional
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicInteger
import java.util.function.Supplier
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.reactor.awaitSingle
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.diagnostics.FailureAnalysis
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/**
 * `@DistributedLock` on Kotlin `suspend` functions and `Flow`s: the lock is held until the function's body
 * finishes (not when it first suspends) or while the Flow is collected, and released once on completion,
 * failure and cancellation.
 */
@BehaviourTest
class KotlinCoroutineTest {

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisExtension()

        /** A second, independent client: stands for another instance of the service. */
        lateinit var otherInstance: LockClient

        @JvmStatic
        @BeforeAll
        fun connectOtherInstance() {
            otherInstance = LockClient.create(RedisURI.create(redis.server().uri()))
        }

        @JvmStatic
        @AfterAll
        fun closeOtherInstance() {
            otherInstance.close()
        }
    }

    private fun runner(): ApplicationContextRunner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration::class.java,
            DistributedLockMetricsAutoConfiguration::class.java))
        .withPropertyValues("spring.data.redis.port=" + redis.server().port(), "distlock.wait-time=" + HoldChecks.WAIT_GRANTED)
        .withBean(MeterRegistry::class.java, Supplier<MeterRegistry> { SimpleMeterRegistry() })
        .withBean(Coroutines::class.java)

    @Test
    fun aSuspendFunctionHoldsTheLockUntilItsBodyFinishesNotWhenItFirstSuspends() {
        runner().run { context ->
            val coroutines = context.getBean(Coroutines::class.java)
            val caller = java.util.concurrent.atomic.AtomicReference<String>()
            val call = CompletableFuture.supplyAsync {
                caller.set(Thread.currentThread().name)
                runBlocking { coroutines.later("k:1", 2000) }
            }
            await().atMost(Duration.ofSeconds(10)).until { coroutines.invocations.get() == 1 }
            HoldChecks.nobodyElseTakesItUntilDone(otherInstance, "k:1", call)
            assertThat(call.get()).`as`("the fencing token, read from the coroutine's ReactorContext").isPositive()
            assertThat(coroutines.startedOn.get())
                .`as`("the body runs in its caller's coroutine context (runBlocking's thread), not on a Redis I/O thread")
                .startsWith(caller.get())
            await().atMost(Duration.ofSeconds(5)).until { !lockedInRedis(redis.server(), "k:1") }
            val registry = context.getBean(MeterRegistry::class.java)
            assertThat(registry.get(LockMetrics.HELD).tags("name", "Coroutines.later").timer().count()).isEqualTo(1)
        }
    }

    @Test
    fun aBusyLockThrowsLockAcquisitionExceptionIntoTheCoroutineAndAFailureReleases() {
        runner().withPropertyValues("distlock.wait-time=" + HoldChecks.WAIT_RUNS_OUT).run { context ->
            val coroutines = context.getBean(Coroutines::class.java)
            val elsewhere = tryElsewhere(otherInstance, "k:2").orElseThrow()
            try {
                assertThatThrownBy { runBlocking { coroutines.later("k:2", 0) } }.isInstanceOf(LockAcquisitionException::class.java)
                assertThat(coroutines.invocations.get()).isZero()
            } finally {
                elsewhere.unlock()
            }
            assertThatThrownBy { runBlocking { coroutines.failing("k:2") } }.hasMessage("out of stock")
            await().atMost(Duration.ofSeconds(5)).until { !lockedInRedis(redis.server(), "k:2") }
        }
    }

    @Test
    fun cancellingTheCoroutineWhileItHoldsTheLockReleasesIt() {
        runner().run { context ->
            val coroutines = context.getBean(Coroutines::class.java)
            runBlocking {
                val job = CoroutineScope(Dispatchers.Default).launch { coroutines.hang("k:3") }
                await().atMost(Duration.ofSeconds(10)).until { coroutines.invocations.get() == 1 && lockedInRedis(redis.server(), "k:3") }
                job.cancelAndJoin()
            }
            await().atMost(Duration.ofSeconds(5)).until { !lockedInRedis(redis.server(), "k:3") }
            tryElsewhere(otherInstance, "k:3").orElseThrow().unlock()
        }
    }

    @Test
    fun aFlowTakesTheLockWhenCollectedAndReleasesWhenDoneOrCancelled() {
        runner().run { context ->
            val coroutines = context.getBean(Coroutines::class.java)
            val flow = coroutines.tokens("k:4", 3)
            assertThat(lockedInRedis(redis.server(), "k:4")).`as`("nothing happens before collection").isFalse()

            val seen = runBlocking { flow.toList() }
            assertThat(seen).hasSize(3).allSatisfy { assertThat(it).isPositive() }
            assertThat(seen.toSet()).`as`("one hold, one token").hasSize(1)
            await().atMost(Duration.ofSeconds(5)).until { !lockedInRedis(redis.server(), "k:4") }

            // take(1) cancels the endless flow after one item: the cancel path releases.
            assertThat(runBlocking { coroutines.tokens("k:4", Int.MAX_VALUE).take(1).toList() }).hasSize(1)
            await().atMost(Duration.ofSeconds(5)).until { !lockedInRedis(redis.server(), "k:4") }
            val registry = context.getBean(MeterRegistry::class.java)
            await().atMost(Duration.ofSeconds(5)).until {
                registry.get(LockMetrics.HELD).tags("name", "Coroutines.tokens").timer().count() == 2L
            }
            tryElsewhere(otherInstance, "k:4").orElseThrow().unlock()
        }
    }

    @Test
    fun inLocalModeASuspendFunctionAndAFlowHoldTheLockUntilDoneAsWithRedis() {
        ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockLocalAutoConfiguration::class.java,
                DistributedLockAutoConfiguration::class.java))
            .withPropertyValues("distlock.mode=local", "spring.data.redis.port=" + RedisServer.freePort(),
                "distlock.wait-time=" + HoldChecks.WAIT_GRANTED)
            .withBean(Coroutines::class.java)
            .run { context ->
                val coroutines = context.getBean(Coroutines::class.java)
                val template = context.getBean(LockTemplate::class.java)
                fun free(key: String) = template.tryExecute(key, Duration.ZERO) { "ran" }.isPresent
                runBlocking {
                    val job = CoroutineScope(Dispatchers.Default).launch { coroutines.hang("k:5") }
                    await().atMost(Duration.ofSeconds(10)).until { coroutines.invocations.get() == 1 }
                    assertThat(free("k:5")).`as`("held while the body is suspended").isFalse()
                    job.cancelAndJoin()
                }
                await().atMost(Duration.ofSeconds(5)).until { free("k:5") }
                assertThat(runBlocking { coroutines.later("k:6", 0) }).`as`("the token").isPositive()
                assertThat(runBlocking { coroutines.tokens("k:7", Int.MAX_VALUE).take(2).toList() }).hasSize(2)
                await().atMost(Duration.ofSeconds(5)).until { free("k:7") }
            }
    }

    @Test
    fun aSuspendFunctionReturningAFlowIsRejectedAtStartup() {
        ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration::class.java))
            .withPropertyValues("spring.data.redis.port=" + redis.server().port())
            .withBean(SuspendFlow::class.java)
            .run { context ->
                assertThat(context).hasFailed()
                val analysis: FailureAnalysis = AutoConfigurationTest.analyze(context.startupFailure!!)
                assertThat(analysis.description).contains("SuspendFlow.items(Continuation)").contains("suspend function returning a Flow")
                assertThat(analysis.action).contains("Drop suspend")
            }
    }

    /** Open, with open members: the bean is a class proxy, and only open members reach the instance. */
    open class Coroutines {
        open val invocations = AtomicInteger()
        open val startedOn = java.util.concurrent.atomic.AtomicReference<String>()

        /** Suspends for [millis], then returns the fencing token found in its coroutine's ReactorContext. */
        @DistributedLock(key = "#key")
        open suspend fun later(key: String, millis: Long): Long {
            startedOn.set(Thread.currentThread().name)
            invocations.incrementAndGet()
            delay(millis)
            return ReactiveLockContext.currentToken().awaitSingle()
        }

        @DistributedLock(key = "#key")
        open suspend fun failing(key: String): String {
            delay(10)
            throw IllegalStateException("out of stock")
        }

        @DistributedLock(key = "#key")
        open suspend fun hang(key: String): String {
            invocations.incrementAndGet()
            awaitCancellation()
        }

        /** Emits [count] times the fencing token found in the Flow's ReactorContext. */
        @DistributedLock(key = "#key")
        open fun tokens(key: String, count: Int): Flow<Long> = flow {
            repeat(count) {
                emit(ReactiveLockContext.currentToken().awaitSingle())
                delay(20)
            }
        }
    }

    open class SuspendFlow {
        @DistributedLock(key = "k")
        open suspend fun items(): Flow<String> = flow { emit("x") }
    }
}
