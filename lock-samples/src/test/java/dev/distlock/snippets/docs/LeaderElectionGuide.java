package dev.distlock.snippets.docs;

import dev.distlock.core.LeaderCandidate;
import dev.distlock.core.LeaderListener;
import dev.distlock.core.LockClient;
import dev.distlock.spring.leader.LeaderCandidates;
import dev.distlock.spring.leader.LeaderElection;
import dev.distlock.spring.leader.Leadership;
import dev.distlock.spring.leader.LeadershipGrantedEvent;
import dev.distlock.spring.leader.LeadershipRevokedEvent;
import java.util.OptionalLong;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;

/** docs/leader-election.md. */
public class LeaderElectionGuide {

    /** A consumer only the leader runs. */
    interface Consumer {
        void start(long term);

        void stop();
    }

    static LeaderCandidate plainJava(LockClient client, Consumer consumer) {
        // docs:begin leader-election.md 0
        LeaderCandidate candidate = client.leader("billing-consumer", new LeaderListener() {
            @Override
            public void granted(String role, long term) {
                consumer.start(term); // stamp the consumer's writes with the term
            }

            @Override
            public void revoked(String role, long term, String reason) {
                consumer.stop();
            }
        });
        candidate.start();
        // ... at shutdown: candidate.close() hands the role on at once
        // docs:end
        return candidate;
    }

    // docs:begin leader-election.md 1
    static class Reports {

        private final Leadership leadership;
        private final JdbcTemplate jdbc;

        Reports(Leadership leadership, JdbcTemplate jdbc) {
            this.leadership = leadership;
            this.jdbc = jdbc;
        }

        @Scheduled(fixedDelay = 60_000) // on every instance; only the leader works
        void sendDueReports() {
            OptionalLong term = leadership.term("report-scheduler");
            if (term.isEmpty()) {
                return;
            }
            // a deposed leader's late write carries a smaller term and changes nothing
            jdbc.update(
                    "UPDATE report_runs SET last_run = now(), term = ? WHERE job = 'daily' AND term <= ?",
                    term.getAsLong(),
                    term.getAsLong());
        }

        @EventListener
        void granted(LeadershipGrantedEvent event) {
            // this instance leads event.role() from now on, with term event.term()
        }

        @EventListener
        void revoked(LeadershipRevokedEvent event) {
            // stop the leader's work for event.role(); event.reason() says why it ended
        }
    }
    // docs:end

    // docs:begin leader-election.md 2
    @Bean
    LeaderElection cacheWarmer(LeaderCandidates candidates) {
        return new LeaderElection("cache-warmer", candidates);
    }
    // docs:end
}
