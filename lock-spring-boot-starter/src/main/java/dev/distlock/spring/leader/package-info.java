/**
 * Leader election in a Spring application: a {@link dev.distlock.spring.leader.LeaderElection} lifecycle
 * bean per role (from {@code distlock.leader.roles} or a {@code @Bean} of your own), the events it
 * publishes ({@link dev.distlock.spring.leader.LeadershipGrantedEvent},
 * {@link dev.distlock.spring.leader.LeadershipRevokedEvent}), and
 * {@link dev.distlock.spring.leader.Leadership}, which answers which roles this instance leads.
 */
@NullMarked
package dev.distlock.spring.leader;

import org.jspecify.annotations.NullMarked;
