package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LeaderCandidate;
import dev.distlock.spring.actuate.DistributedLocksEndpoint;
import dev.distlock.spring.autoconfigure.DistributedLockActuatorAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockLeaderAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockLocalAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.leader.LeaderCandidates;
import dev.distlock.spring.leader.LeaderElection;
import dev.distlock.spring.leader.Leadership;
import dev.distlock.spring.leader.LeadershipGrantedEvent;
import dev.distlock.spring.leader.LeadershipRevokedEvent;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.NestedExceptionUtils;

/**
 * Leader election in the starter: a LeaderElection bean per role of distlock.leader.roles (or of your
 * own), granted and revoked events, Leadership, the endpoint, the metrics; on Redis and in local mode.
 */
@BehaviourTest
class LeaderElectionStarterTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static ApplicationContextRunner runner(String... properties) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockLocalAutoConfiguration.class,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockLeaderAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class,
                        DistributedLockActuatorAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port(),
                        "management.endpoints.web.exposure.include=distributedlocks")
                .withPropertyValues(properties)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Events.class);
    }

    /** Records the leadership events the context publishes. */
    static class Events {
        final List<Object> received = new CopyOnWriteArrayList<>();

        @EventListener
        void granted(LeadershipGrantedEvent event) {
            received.add(event);
        }

        @EventListener
        void revoked(LeadershipRevokedEvent event) {
            received.add(event);
        }

        List<LeadershipGrantedEvent> grants() {
            return received.stream()
                    .filter(LeadershipGrantedEvent.class::isInstance)
                    .map(LeadershipGrantedEvent.class::cast)
                    .toList();
        }

        List<LeadershipRevokedEvent> revocations() {
            return received.stream()
                    .filter(LeadershipRevokedEvent.class::isInstance)
                    .map(LeadershipRevokedEvent.class::cast)
                    .toList();
        }
    }

    private static double count(ConfigurableApplicationContext context, String meter, String role) {
        return context.getBean(MeterRegistry.class)
                .get(meter)
                .tag(LockMetrics.ROLE, role)
                .counter()
                .count();
    }

    @Test
    void oneOfTwoInstancesLeadsEachRoleAndTheOtherTakesOverWhenItStops() {
        String role = "reports-" + System.nanoTime();
        runner("distlock.leader.roles=" + role).run(first -> {
            Leadership leadership = first.getBean(Leadership.class);
            Events events = first.getBean(Events.class);
            assertThat(first).hasBean("distlock.leader." + role);
            // isLeader() turns true as the grant arrives; the event follows on the candidate's thread
            await().atMost(Waits.GRANTED)
                    .until(() -> leadership.isLeader(role)
                            && count(first, LockMetrics.LEADER_GRANTED, role) == 1
                            && !events.grants().isEmpty());
            long term = events.grants().get(0).term();
            assertThat(events.grants()).containsExactly(new LeadershipGrantedEvent(role, term));
            assertThat(leadership.term(role)).hasValue(term);
            assertThat(leadership.roles()).containsExactly(role);
            assertThat(first.getBean(DistributedLocksEndpoint.class).holds().leading())
                    .containsExactly(java.util.Map.entry(role, term));
            assertThat(count(first, LockMetrics.LEADER_GRANTED, role)).isEqualTo(1);
            assertThat(count(first, LockMetrics.LEADER_REVOKED, role)).isZero();

            runner("distlock.leader.roles=" + role).run(second -> {
                Leadership other = second.getBean(Leadership.class);
                assertThat(other.isLeader(role)).isFalse();
                assertThat(second.getBean(DistributedLocksEndpoint.class)
                                .holds()
                                .leading())
                        .isEmpty();

                first.stop(); // the context's lifecycle stops: the election steps down at once

                assertThat(events.revocations()).containsExactly(new LeadershipRevokedEvent(role, term, "closed"));
                assertThat(count(first, LockMetrics.LEADER_REVOKED, role)).isEqualTo(1);
                // far sooner than the 30 s lease: the release woke the other instance
                await().atMost(Waits.GRANTED)
                        .until(() -> other.isLeader(role)
                                && !second.getBean(Events.class).grants().isEmpty());
                assertThat(other.term(role).getAsLong()).isGreaterThan(term);
                assertThat(second.getBean(Events.class).grants())
                        .singleElement()
                        .satisfies(g -> assertThat(g.term()).isGreaterThan(term));
            });
        });
    }

    @Test
    void inLocalModeARoleOfPropertiesAndOneOfABeanAreLedAndYieldingPublishesRevokedThenGrantedAgain() {
        runner(
                        "distlock.mode=local",
                        "spring.data.redis.port=" + dev.distlock.testsupport.Ports.closed(),
                        "distlock.leader.roles=a,b")
                .withUserConfiguration(OwnElection.class)
                .run(context -> {
                    Leadership leadership = context.getBean(Leadership.class);
                    Events events = context.getBean(Events.class);
                    assertThat(leadership.roles()).containsExactly("a", "b", "own");
                    await().atMost(Waits.GRANTED)
                            .until(() -> leadership.leading().size() == 3);
                    long term = leadership.term("own").getAsLong();

                    assertThat(leadership.yieldLeadership("own")).isTrue();

                    assertThat(leadership.isLeader("own")).isFalse();
                    // alone in the election, it takes the role again after the yield's back-off
                    await().atMost(Waits.GRANTED)
                            .until(() -> leadership.isLeader("own")
                                    && count(context, LockMetrics.LEADER_GRANTED, "own") == 2);
                    assertThat(leadership.term("own").getAsLong()).isGreaterThan(term);
                    assertThat(events.revocations())
                            .containsExactly(new LeadershipRevokedEvent("own", term, "yielded"));
                    assertThat(count(context, LockMetrics.LEADER_GRANTED, "own"))
                            .isEqualTo(2);
                    assertThat(LeaderCandidate.YIELD_BACK_OFF).isPositive();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnElection {
        @Bean
        LeaderElection ownElection(LeaderCandidates candidates) {
            return new LeaderElection("own", candidates);
        }
    }

    @Test
    void aBlankOrRepeatedRoleFailsStartUpAndAnUnknownRoleIsRefusedWithWhatToDo() {
        runner("distlock.mode=local", "distlock.leader.roles=a,a")
                .run(context -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
                        .hasMessageContaining("distlock.leader.roles lists 'a' twice"));
        runner("distlock.mode=local", "distlock.leader.roles[0]= ")
                .run(context -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
                        .hasMessageContaining("blank role"));
        runner("distlock.mode=local", "distlock.leader.roles=own")
                .withUserConfiguration(OwnElection.class)
                .run(context -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
                        .hasMessageContaining("Two LeaderElection beans stand for role 'own'"));
        runner("distlock.mode=local").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Leadership.class);
            Leadership leadership = context.getBean(Leadership.class);
            assertThat(leadership.leading()).isEmpty();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> leadership.isLeader("nope"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'nope'")
                    .hasMessageContaining("distlock.leader.roles");
        });
    }
}
