// A fixed retry quota per window (components/quota.hpp). Exact cases by hand, on a dependency that
// fails every attempt (model none, failure_prob 1), so only the quota, max_attempts or the horizon
// end a request: one window over the whole run lets the burst retry `quota` times in all; a window
// shorter than the gap between two decisions never refuses; a quota that never binds changes no
// number of the run.
#include <gtest/gtest.h>

#include <cstring>

#include "analytic/error.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/montecarlo/engine_instances.hpp"
#include "tests/support/scenario_checks.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::InputError;
using retrylab::Model;
using retrylab::Strategy;
using retrylab::test::refused_field;
using retrylab::test::same_bits;

namespace {

mc::Scenario failing_burst(std::int64_t clients) {
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 10.0, 0.0};
  s.traffic.clients = clients;
  s.failures.failure_prob = 1.0;
  return s;
}

}  // namespace

TEST(Quota, OneWindowLetsTheBurstRetryQuotaTimesInAll) {
  mc::Scenario s = failing_burst(4);
  s.client.quota = 3;
  s.client.quota_window = 1e6;  // the whole run
  mc::check_scenario(s);
  const mc::RunResult r = mc::simulate_run(s, 5, 0);
  EXPECT_EQ(r.attempts, 4 + 3);  // every first attempt, then the three retries the quota grants
  EXPECT_EQ(r.lost, 4);          // each client is refused once: the fourth at once, the three after their retry
  EXPECT_EQ(r.metric("quota_denied"), 4);
}

TEST(Quota, ItsCountStartsAgainInEachWindow) {
  // One client, five attempts at most: its decisions lie at least one attempt-duration apart, so with
  // windows of half that each falls in a window of its own and the quota of one never refuses.
  mc::Scenario s = failing_burst(1);
  s.client.max_attempts = 5;
  s.client.quota = 1;
  s.client.quota_window = 0.5;
  mc::check_scenario(s);
  mc::RunResult r = mc::simulate_run(s, 5, 0);
  EXPECT_EQ(r.attempts, 5);
  EXPECT_EQ(r.metric("quota_denied"), 0);
  s.client.quota_window = 1e6;  // one window: one retry, then refused
  r = mc::simulate_run(s, 5, 0);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.metric("quota_denied"), 1);
}

TEST(Quota, AQuotaThatNeverBindsChangesNothing) {
  // The canonical string keys a run's random numbers and a quota is in it, so both runs are keyed by
  // the scenario without the quota (as common random numbers are): then every draw is the same.
  mc::Scenario s;
  s.model = Model::collision;
  s.backoff = {Strategy::full, 1.0, 1000.0, 0.0};
  s.traffic.clients = 50;
  mc::Scenario q = s;
  q.client.quota = mc::max_limit;  // more retries than fit
  mc::detail::EngineOptions options;
  options.scenario_hash = mc::stable_hash(s);
  for (std::uint64_t run = 0; run < 5; ++run) {
    mc::detail::NullObserver none;
    const mc::RunResult a = mc::detail::run_engine(s, 11, run, options, none);
    const mc::RunResult b = mc::detail::run_engine(q, 11, run, options, none);
    EXPECT_EQ(a.attempts, b.attempts);
    EXPECT_EQ(a.successes, b.successes);
    EXPECT_TRUE(same_bits(a.stop_time, b.stop_time)) << a.stop_time << " " << b.stop_time;
    EXPECT_EQ(b.metric("quota_denied"), 0);
  }
}

TEST(Quota, RulesNameTheirField) {
  mc::Scenario s = failing_burst(2);
  s.client.quota = -1;
  EXPECT_EQ(refused_field(s), "quota");
  s.client.quota = 0;
  s.client.quota_window = 5;  // a window without a quota
  EXPECT_EQ(refused_field(s), "quota_window");
  s.client.quota = 2;
  s.client.quota_window = 0;
  EXPECT_EQ(refused_field(s), "quota_window");
  s.client.quota_window = 5;
  s.client.retries = false;
  EXPECT_EQ(refused_field(s), "quota");
  s.client.retries = true;
  EXPECT_EQ(refused_field(s), "(accepted)");
}
