// Replicas behind a load balancer (components/replicas.hpp). Exact small cases worked by hand (the
// balancers' counts, each replica's own limit and queue, an outage on one replica, retries to
// another replica), a hedge over two replicas against the same hedge behind one FIFO queue, and the
// refusals of the combinations replicas do not support.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "montecarlo/scenario.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/support/scenario_checks.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::Model;
using retrylab::Strategy;
using retrylab::test::refused_field;
using retrylab::test::same_bits;

namespace {

mc::RunResult simulate(const mc::Scenario& s, std::uint64_t seed = 5, std::uint64_t run = 0) {
  mc::check_scenario(s);
  return mc::simulate_run(s, seed, run);
}

// A burst of n clients at t = 0 on model none, deterministic service 1, k replicas.
mc::Scenario burst(std::int64_t n, std::int64_t k, mc::Balancer b) {
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::none, 1.0, 10.0, 0.0};
  s.traffic.clients = n;
  s.replicas.count = k;
  s.replicas.balancer = b;
  return s;
}

}  // namespace

TEST(Replicas, RoundRobinGivesEachReplicaItsOwnQueue) {
  // 8 clients at t = 0, 4 replicas each of limit 1 with a queue, round-robin: clients 1..8 go to
  // replicas 0,1,2,3,0,1,2,3, so each replica serves two: latencies 1,1,1,1,2,2,2,2 (mean 1.5,
  // makespan 2). One server of limit 1 serves them in turn: mean (1 + ... + 8)/8 = 4.5.
  mc::Scenario s = burst(8, 4, mc::Balancer::round_robin);
  s.admission.limit = 1;
  s.admission.overflow = mc::Overflow::queue;
  const mc::RunResult r = simulate(s);
  EXPECT_EQ(r.successes, 8);
  EXPECT_DOUBLE_EQ(r.latency, 1.5);
  EXPECT_DOUBLE_EQ(r.makespan, 2.0);
  EXPECT_EQ(r.metric("replica_attempts_max"), 2.0);
  EXPECT_EQ(r.metric("replica_attempts_min"), 2.0);
  EXPECT_EQ(r.metric("replica_imbalance"), 1.0);
  mc::Scenario one = s;
  one.replicas = {};
  EXPECT_DOUBLE_EQ(simulate(one).latency, 4.5);
  EXPECT_TRUE(std::isnan(simulate(one).metric("replica_imbalance")));  // not measured on one server
}

TEST(Replicas, LeastOutstandingSpreadsABurstEvenly) {
  // 9 attempts sent at one instant to 3 replicas: each goes to a replica with the fewest sent so
  // far, so each gets 3 (the ties are drawn, the counts are not).
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const mc::RunResult r = simulate(burst(9, 3, mc::Balancer::least_outstanding), seed);
    EXPECT_EQ(r.metric("replica_attempts_max"), 3.0);
    EXPECT_EQ(r.metric("replica_attempts_min"), 3.0);
  }
  // Random balancing of the same burst is uneven in most runs.
  int uneven = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed)
    uneven += simulate(burst(9, 3, mc::Balancer::random), seed).metric("replica_imbalance") > 1.0;
  EXPECT_GE(uneven, 3);
}

TEST(Replicas, P2cIsNoWorseThanRandomOnABurst) {
  // Power of two choices on a burst of 64 over 8 replicas: the busiest replica's share stays near
  // the mean (with the outstanding counts all rising, p2c never sends to the busier of its two).
  double p2c = 0.0, random = 0.0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    p2c += simulate(burst(64, 8, mc::Balancer::p2c), seed).metric("replica_attempts_max");
    random += simulate(burst(64, 8, mc::Balancer::random), seed).metric("replica_attempts_max");
  }
  EXPECT_LT(p2c, random);
}

TEST(Replicas, OutageOnOneReplicaAndRetriesToAnother) {
  // 10 clients, 2 replicas, round-robin: clients 1, 3, ... go to replica 0, 2, 4, ... to replica 1,
  // whose outage fails every attempt in [0, 100). One attempt each: 5 answered, 5 lost.
  mc::Scenario s = burst(10, 2, mc::Balancer::round_robin);
  s.failures.outage_end = 100.0;
  s.replicas.outage_replica = 2;
  s.client.max_attempts = 1;
  mc::RunResult r = simulate(s);
  EXPECT_EQ(r.successes, 5);
  EXPECT_EQ(r.lost, 5);
  // Two attempts, the retry to the other replica: every request answered, the failed ones on their
  // second attempt.
  s.client.max_attempts = 2;
  s.replicas.retry = mc::ReplicaRetry::other;
  r = simulate(s);
  EXPECT_EQ(r.successes, 10);
  EXPECT_EQ(r.lost, 0);
  EXPECT_EQ(r.attempts, 15);
  // The outage on every replica: nothing is answered.
  s.replicas.outage_replica = 0;
  r = simulate(s);
  EXPECT_EQ(r.successes, 0);
  EXPECT_EQ(r.lost, 10);
}

TEST(Replicas, RetryToOtherNeverReturnsToTheFailedReplica) {
  // 3 replicas, random balancing, replica 2 down for the whole run, 3 attempts a request. With
  // replica_retry other a request's second attempt goes to a replica it has not tried, which is up,
  // so no request is lost and none makes more than 2 attempts; with any, a request lands on the
  // failed replica three times with probability 1/27, so some of 1000 are lost.
  mc::Scenario s = burst(1000, 3, mc::Balancer::random);
  s.failures.outage_end = 1e6;
  s.replicas.outage_replica = 2;
  s.client.max_attempts = 3;
  s.replicas.retry = mc::ReplicaRetry::other;
  const mc::RunResult other = simulate(s);
  EXPECT_EQ(other.lost, 0);
  EXPECT_EQ(other.successes, 1000);
  EXPECT_EQ(other.attempts, 1000 + static_cast<std::int64_t>(other.metric("injected")));
  s.replicas.retry = mc::ReplicaRetry::any;
  const mc::RunResult any = simulate(s);
  EXPECT_GT(any.lost, 0);
}

TEST(Replicas, AHedgeOvertakesOnlyOnAnotherReplica) {
  // One request at a time (a burst of one, runs independent), exponential service, limit 1 and a
  // queue, hedge_attempts 2 after delay 0.5. On one server the hedge waits in the FIFO queue behind
  // its original and can only start when the original has answered: it never wins. On two
  // replicas with the hedge sent to the other, it wins whenever 0.5 + S2 < S1 (probability e^−0.5/2
  // = 0.30 per run: the chance that none of 200 runs sees one is below 1e-30).
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.clients = 1;
  s.resource.service = mc::ServiceDist::exponential;
  s.admission.limit = 1;
  s.admission.overflow = mc::Overflow::queue;
  s.client.hedge.attempts = 2;
  s.client.hedge.delay = 0.5;
  s.client.hedge.cancel = false;  // (a queued copy is not cancelled: hedge_cancel needs it in service)
  double one_server = 0.0;
  for (std::uint64_t run = 0; run < 200; ++run) one_server += simulate(s, 7, run).metric("hedge_wins");
  EXPECT_EQ(one_server, 0.0);
  s.replicas.count = 2;
  s.replicas.retry = mc::ReplicaRetry::other;
  double two = 0.0;
  for (std::uint64_t run = 0; run < 200; ++run) two += simulate(s, 7, run).metric("hedge_wins");
  EXPECT_GT(two, 0.0);
}

TEST(Replicas, SameSeedSameBytes) {
  mc::Scenario s = burst(200, 5, mc::Balancer::p2c);
  s.resource.service = mc::ServiceDist::exponential;
  s.admission.limit = 2;
  s.admission.overflow = mc::Overflow::queue;
  const mc::RunResult a = simulate(s, 11), b = simulate(s, 11);
  EXPECT_TRUE(same_bits(a.latency, b.latency));
  EXPECT_TRUE(same_bits(a.metric("replica_imbalance"), b.metric("replica_imbalance")));
}

TEST(Replicas, RefusesWhatItDoesNotModel) {
  mc::Scenario s = burst(10, 2, mc::Balancer::random);
  s.model = Model::collision;
  EXPECT_EQ(refused_field(s), "replicas");
  s.model = Model::ps;
  EXPECT_EQ(refused_field(s), "replicas");
  s = burst(10, 2, mc::Balancer::random);
  s.resource.lock = true;
  EXPECT_EQ(refused_field(s), "replicas");
  s = burst(10, 2, mc::Balancer::random);
  s.admission.aimd = true;
  EXPECT_EQ(refused_field(s), "replicas");
  s = burst(10, 1, mc::Balancer::p2c);
  EXPECT_EQ(refused_field(s), "balancer");
  s = burst(10, 1, mc::Balancer::random);
  s.replicas.retry = mc::ReplicaRetry::other;
  EXPECT_EQ(refused_field(s), "replica_retry");
  s = burst(10, 2, mc::Balancer::random);
  s.failures.outage_end = 5.0;
  s.replicas.outage_replica = 3;
  EXPECT_EQ(refused_field(s), "outage_replica");
  s.failures.outage_end = 0.0;
  s.replicas.outage_replica = 1;
  EXPECT_EQ(refused_field(s), "outage_replica");
  s.failures.outage_end = 5.0;
  s.replicas.count = 1;
  EXPECT_EQ(refused_field(s), "outage_replica");  // one server: the outage hits it (0)
  s.replicas.count = 2;
  s.replicas.outage_replica = 0;
  EXPECT_EQ(refused_field(s), "(accepted)");
}
