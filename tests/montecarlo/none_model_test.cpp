// The `none` model (an uncontended dependency whose attempts fail only by injected failure) with
// the mechanisms of a failing-dependency scenario: idempotency keys and the effects they count,
// recovery after an outage, and settling (every request resolves after the horizon). Exact
// hand-worked cases first, then closed forms. (Paper 2's failing-dependency scenarios on this model:
// dependency_engine_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>

#include "analytic/error.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/simulate.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;

namespace {

mc::Scenario dependency(double rate, double horizon) {
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 100.0, 0.0};
  s.traffic.rate = rate;
  s.measurement.horizon = horizon;
  return s;
}

TEST(NoneModel, WithoutInjectionEveryAttemptSucceedsAtOnce) {
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 100.0, 0.0};
  s.traffic.clients = 500;  // a burst on an uncontended dependency: no attempt conflicts with another
  const mc::RunResult r = mc::simulate_run(s, 3, 0);
  EXPECT_EQ(r.attempts, 500);
  EXPECT_EQ(r.successes, 500);
  EXPECT_DOUBLE_EQ(r.makespan, 1.0);
  EXPECT_DOUBLE_EQ(r.work_done, 500.0);  // every attempt served alone at rate 1
  EXPECT_TRUE(mc::has_server_features(s));
}

TEST(NoneModel, EveryAttemptTimesOutAndStillTakesEffect) {
  // Service 1 > timeout 0.5: each attempt times out for its client, which retries, but every
  // attempt succeeds at the server. With max_attempts 3 every request is lost after 3 attempts;
  // settle lets the last attempts end at the server after their clients have given up.
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 100.0, 0.0};
  s.traffic.clients = 40;
  s.client.timeout = 0.5;
  s.client.max_attempts = 3;
  s.measurement.settle = true;
  for (const auto key : {mc::Idempotency::none, mc::Idempotency::per_attempt}) {
    s.client.idempotency = key;
    const mc::RunResult r = mc::simulate_run(s, 5, 0);
    EXPECT_EQ(r.attempts, 120);
    EXPECT_EQ(r.lost, 40);
    EXPECT_EQ(r.successes, 0);
    EXPECT_EQ(r.metric("effects"), 120);           // every attempt took effect
    EXPECT_EQ(r.metric("duplicate_effects"), 80);  // two beyond the first, per request
    EXPECT_EQ(r.metric("hidden_effects"), 40);     // every lost request took effect
  }
  s.client.idempotency = mc::Idempotency::fixed;
  const mc::RunResult r = mc::simulate_run(s, 5, 0);
  EXPECT_EQ(r.metric("effects"), 40);  // the key deduplicates the second and third
  EXPECT_EQ(r.metric("duplicate_effects"), 0);
  EXPECT_EQ(r.metric("hidden_effects"), 40);
  EXPECT_DOUBLE_EQ(r.stop_time - r.drain_time, 0.5);  // the last attempts end 0.5 after their timeouts
  // Without settle the run stops when the last client leaves: its attempts' effects are not counted.
  s.measurement.settle = false;
  s.client.idempotency = mc::Idempotency::none;
  EXPECT_LT(mc::simulate_run(s, 5, 0).metric("effects"), 120);
}

TEST(NoneModel, WithoutTimeoutsEffectsAreTheSuccesses) {
  mc::Scenario s = dependency(2.0, 200.0);
  s.failures.failure_prob = 0.4;
  s.client.max_attempts = 4;
  s.client.idempotency = mc::Idempotency::none;
  const mc::RunResult r = mc::simulate_run(s, 9, 0);
  EXPECT_GT(r.successes, 0);
  EXPECT_EQ(r.metric("effects"), r.successes);
  EXPECT_EQ(r.metric("duplicate_effects"), 0);
  EXPECT_EQ(r.metric("hidden_effects"), 0);
}

TEST(NoneModel, RecoveryIsTheFirstWindowAfterTheOutage) {
  // A total outage [100, 200), no failure outside: the attempts completing in [200, 210) all
  // succeed (injection is decided at completion), so recovery is the first window's end: 10.
  mc::Scenario s = dependency(1.0, 400.0);
  s.failures.outage_start = 100.0;
  s.failures.outage_end = 200.0;
  s.measurement.recovery_window = 10.0;
  s.client.max_attempts = 5;
  const mc::RunResult r = mc::simulate_run(s, 11, 0);
  EXPECT_FALSE(std::isnan(r.metric("recovered")));  // recovery was measured
  EXPECT_DOUBLE_EQ(r.metric("recovery_time"), 10.0);
  s.measurement.recovery_window = 0.0;
  EXPECT_TRUE(std::isnan(mc::simulate_run(s, 11, 0).metric("recovery_time")));
}

TEST(NoneModel, SettleResolvesEveryRequest) {
  mc::Scenario s = dependency(1.5, 300.0);
  s.failures.failure_prob = 0.6;
  s.client.max_attempts = 3;
  s.measurement.settle = true;
  for (std::uint64_t run = 0; run < 5; ++run) {
    const mc::RunResult r = mc::simulate_run(s, 13, run);
    EXPECT_EQ(r.stop, mc::StopReason::finished);
    EXPECT_EQ(r.unfinished, 0);
    EXPECT_EQ(r.successes + r.lost, r.clients_arrived);
    EXPECT_GE(r.stop_time, 300.0 - 20.0);  // arrivals up to the horizon, then the tail resolves
  }
  // Without settle the same run stops at the horizon with requests in progress.
  s.measurement.settle = false;
  EXPECT_EQ(mc::simulate_run(s, 13, 0).stop, mc::StopReason::horizon);
}

TEST(NoneModel, InputRules) {
  mc::Scenario s = dependency(1.0, 100.0);
  s.measurement.settle = true;  // retries unlimited: some request could never resolve
  EXPECT_THROW(mc::check_scenario(s), InputError);
  s.client.max_attempts = 3;
  EXPECT_NO_THROW(mc::check_scenario(s));
  s.measurement.recovery_window = 5.0;  // without an outage
  try {
    mc::check_scenario(s);
    FAIL() << "recovery_window without an outage was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "recovery_window");
  }
}

// Closed forms of the `none` model with independent failures p and at most A attempts: a request
// succeeds with probability 1 − p^A and makes (1 − p^A)/(1 − p) attempts on average. 400 runs of
// ~600 requests: each mean has a standard error near 1e-3 (fraction) and 4e-3 (attempts); the
// bound of 5 standard errors gives a false-failure rate under 1e-6 per check.
TEST(NoneModel, IndependentFailuresMatchTheirClosedForms) {
  mc::Scenario s = dependency(1.0, 600.0);
  const double p = 0.3;
  const int a = 3;
  s.failures.failure_prob = p;
  s.client.max_attempts = a;
  s.measurement.settle = true;
  const mc::Summary sum = mc::summarize(mc::simulate(s, {400, 17, 0}));
  const double success = 1.0 - std::pow(p, a);
  const double attempts = (1.0 - std::pow(p, a)) / (1.0 - p);
  EXPECT_NEAR(1.0 - sum.lost_fraction.mean, success, 5.0 * sum.lost_fraction.sd / std::sqrt(400.0) + 1e-12);
  EXPECT_NEAR(sum.attempts_per_client.mean, attempts, 5.0 * sum.attempts_per_client.sd / std::sqrt(400.0));
}

}  // namespace
