// Whose a retry budget or a circuit breaker is (BudgetParams::scope, BreakerParams::scope; fields
// budget_scope, breaker_scope): one shared by every client, or one per client. Exact cases by hand:
// with one client the two scopes are the same run bit for bit; with a token bucket of two retries, a
// shared bucket lets the whole burst retry twice in all, one bucket per client lets each client retry
// twice.
#include <gtest/gtest.h>

#include <cstring>
#include <iterator>
#include <string_view>

#include "analytic/error.hpp"
#include "montecarlo/controls.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/montecarlo/engine_instances.hpp"
#include "tests/support/scenario_checks.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;
using retrylab::test::same_bits;

namespace {

int preset(const std::string_view (&names)[std::size(mc::budget_preset_names)], std::string_view name) {
  for (std::size_t i = 0; i < std::size(names); ++i)
    if (names[i] == name) return static_cast<int>(i);
  ADD_FAILURE() << "no preset " << name;
  return 0;
}

// Every attempt fails (an uncontended dependency failing them all): only the budget ends a request.
mc::Scenario failing_burst(std::int64_t clients) {
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 10.0, 0.0};
  s.traffic.clients = clients;
  s.failures.failure_prob = 1.0;
  s.client.budget.preset = preset(mc::budget_preset_names, "token-bucket");
  s.client.budget.capacity = 10.0;
  s.client.budget.cost = 5.0;  // two retries from a full bucket: 10 -> 5 -> 0; a third would go below 0
  s.client.budget.refund = 1.0;
  return s;
}

}  // namespace

TEST(Scope, ASharedBucketLetsTheBurstRetryTwiceInAll) {
  mc::Scenario s = failing_burst(4);
  mc::check_scenario(s);
  const mc::RunResult r = mc::simulate_run(s, 9, 0);
  EXPECT_EQ(r.attempts, 4 + 2);  // every first attempt, then two retries for the whole burst
  EXPECT_EQ(r.lost, 4);
  EXPECT_EQ(r.metric("retries_denied"), 4);
}

TEST(Scope, OneBucketPerClientLetsEachRetryTwice) {
  mc::Scenario s = failing_burst(4);
  s.client.budget.scope = mc::Scope::client;
  mc::check_scenario(s);
  const mc::RunResult r = mc::simulate_run(s, 9, 0);
  EXPECT_EQ(r.attempts, 4 * 3);  // each client: its first attempt and two retries
  EXPECT_EQ(r.lost, 4);
  EXPECT_EQ(r.metric("retries_denied"), 4);
}

TEST(Scope, WithOneClientBothScopesAreTheSameRun) {
  for (const char* budget : {"aws-standard", "grpc", "finagle", "sre-adaptive"}) {
    for (const int breaker : {0, 1, 2}) {
      mc::Scenario s;
      s.model = Model::none;
      s.backoff = {Strategy::full, 1.0, 50.0, 0.0};
      s.traffic.clients = 1;
      s.failures.failure_prob = 0.6;
      s.client.max_attempts = 40;
      s.client.attempt_ms = 10.0;
      s.client.budget.preset = preset(mc::budget_preset_names, budget);
      s.client.breaker.preset = breaker;
      mc::Scenario per_client = s;
      per_client.client.budget.scope = mc::Scope::client;
      if (breaker != 0) per_client.client.breaker.scope = mc::Scope::client;
      mc::check_scenario(s);
      mc::check_scenario(per_client);
      // The two canonical strings differ (so would their random numbers): both runs take the shared
      // scenario's key.
      mc::detail::EngineOptions o;
      o.scenario_hash = mc::stable_hash(s);
      for (std::uint64_t run = 0; run < 20; ++run) {
        SCOPED_TRACE(std::string(budget) + " breaker " + std::to_string(breaker) + " run " + std::to_string(run));
        mc::detail::NullObserver oa, ob;
        const mc::RunResult a = mc::detail::run_engine(s, 4, run, o, oa);
        const mc::RunResult b = mc::detail::run_engine(per_client, 4, run, o, ob);
        EXPECT_EQ(a.attempts, b.attempts);
        EXPECT_EQ(a.successes, b.successes);
        EXPECT_EQ(a.lost, b.lost);
        EXPECT_TRUE(same_bits(a.stop_time, b.stop_time));
        for (std::size_t k = 0; k < a.extra.size(); ++k) EXPECT_TRUE(same_bits(a.extra[k], b.extra[k])) << "slot " << k;
      }
    }
  }
}

TEST(Scope, NeedsItsControl) {
  mc::Scenario s;
  s.model = Model::free;
  s.backoff = {Strategy::full, 1.0, 10.0, 0.0};
  s.traffic.clients = 3;
  s.client.budget.scope = mc::Scope::client;
  try {
    mc::check_scenario(s);
    FAIL() << "budget_scope without a budget was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "budget_scope");
  }
  s.client.budget.scope = mc::Scope::shared;
  s.client.breaker.scope = mc::Scope::client;
  try {
    mc::check_scenario(s);
    FAIL() << "breaker_scope without a breaker was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "breaker_scope");
  }
}
