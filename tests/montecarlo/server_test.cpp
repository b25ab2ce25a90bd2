// The server-side mechanisms and lifted limits (montecarlo/engine.hpp) as a whole: canonical strings
// (old scenarios keep theirs), input checks, thread-independence, client accounting on random
// scenarios, and the full tier equal to the plain one on the original model. The families of options
// have their own files: server_admission_test.cpp (lock, limit, queue, rejections, Retry-After,
// AIMD), server_client_test.cpp (client controls: timeouts, retry limits, mixed clients).
// Expected values in the exact cases are worked out by hand in the comment beside each (every number
// is a sum of binary-exact values, so EXPECT_EQ is exact).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <ostream>
#include <tuple>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/montecarlo/engine_instances.hpp"
#include "tests/montecarlo/server_cases.hpp"

using namespace server_cases;

namespace {

// The example in scenario.hpp, written before the server options existed: a scenario without them must
// keep exactly this canonical string (so its RNG key and results).
constexpr const char* documented_canonical =
    "model=free strategy=full base=1 cap=1000 window=0 clients=100 rate=0 horizon=10000000 warmup=0 collapse=3000 "
    "retries=on";

mc::Scenario documented() {
  mc::Scenario s;
  s.model = Model::free;
  s.traffic.clients = 100;
  return s;
}

TEST(ServerScenario, DefaultsKeepTheCanonicalString) {
  const mc::Scenario s = documented();
  EXPECT_EQ(mc::canonical(s), documented_canonical);
  EXPECT_FALSE(mc::has_server_features(s));
}

TEST(ServerScenario, EachOptionIsAppendedOnlyWhenSet) {
  const std::vector<std::pair<std::function<void(mc::Scenario&)>, std::string>> cases = {
      {[](auto& o) { o.resource.rows = 4; }, " rows=4"},
      {[](auto& o) { o.resource.service = mc::ServiceDist::exponential; }, " service=exponential"},
      {[](auto& o) {
         o.resource.service = mc::ServiceDist::lognormal;
         o.resource.service_cv = 1.5;
       },
       " service=lognormal service_cv=1.5"},
      {[](auto& o) { o.resource.delay = 0.25; }, " delay=0.25"},
      {[](auto& o) {
         o.resource.delay = 0.25;
         o.resource.delay_dist = mc::DelayDist::exponential;
       },
       " delay=0.25 delay_dist=exponential"},
      {[](auto& o) { o.resource.lock = true; }, " lock=on"},
      {[](auto& o) { o.admission.limit = 8; }, " limit=8"},
      {[](auto& o) {
         o.admission.limit = 8;
         o.admission.overflow = mc::Overflow::queue;
       },
       " limit=8 overflow=queue"},
      {[](auto& o) {
         o.admission.limit = 8;
         o.admission.reject_cost = 0.1;
         o.admission.retry_after = 5;
         o.admission.retry_after_rule = mc::RetryAfterRule::uniform;
         o.client.ignore_retry_after = 0.1;
       },
       " limit=8 reject_cost=0.1 retry_after=5 retry_after_rule=uniform ignore_retry_after=0.1"},
      {[](auto& o) { o.admission.aimd = true; },
       " aimd=on aimd_initial=20 aimd_min=20 aimd_max=200 aimd_backoff=0.9 aimd_timeout=none"},
      {[](auto& o) { o.client.mix = 0.1; }, " mix=0.1 mix_strategy=none mix_base=1 mix_cap=1000 mix_window=0"},
      {[](auto& o) { o.client.timeout = 2.5; }, " timeout=2.5"},
      {[](auto& o) {
         o.client.timeout = 4;
         o.client.max_attempts = 3;
       },
       " timeout=4 max_attempts=3"},
  };
  for (const auto& [set, suffix] : cases) {
    mc::Scenario s = documented();
    set(s);
    ASSERT_NO_THROW(mc::check_scenario(s)) << suffix;
    EXPECT_TRUE(mc::has_server_features(s)) << suffix;
    EXPECT_EQ(mc::canonical(s), std::string(documented_canonical) + suffix);
    EXPECT_NE(mc::stable_hash(s), mc::stable_hash(documented()));
  }
}

TEST(ServerScenario, BadValuesNameTheirField) {
  const std::vector<std::pair<std::function<void(mc::Scenario&)>, std::string>> cases = {
      {[](auto& s) { s.resource.rows = 0; }, "rows"},
      {[](auto& s) { s.resource.rows = mc::max_rows + 1; }, "rows"},
      {[](auto& s) { s.resource.service_cv = 1.0; }, "service_cv"},  // deterministic
      {[](auto& s) { s.resource.service = mc::ServiceDist::lognormal; }, "service_cv"},
      {[](auto& s) {
         s.resource.service = mc::ServiceDist::lognormal;
         s.resource.service_cv = NAN;
       },
       "service_cv"},
      {[](auto& s) { s.resource.delay = -1; }, "delay"},
      {[](auto& s) { s.resource.delay = INFINITY; }, "delay"},
      {[](auto& s) { s.resource.delay_dist = mc::DelayDist::exponential; }, "delay_dist"},
      {[](auto& s) { s.admission.limit = -1; }, "limit"},
      {[](auto& s) {
         s.admission.limit = 3;
         s.admission.aimd = true;
       },
       "limit"},
      {[](auto& s) { s.admission.overflow = mc::Overflow::queue; }, "overflow"},
      {[](auto& s) {
         s.admission.limit = 3;
         s.admission.reject_cost = 1.5;
       },
       "reject_cost"},
      {[](auto& s) { s.admission.reject_cost = 0.5; }, "reject_cost"},  // no limit: nothing rejected
      {[](auto& s) { s.admission.retry_after = 2; }, "retry_after"},
      {[](auto& s) {
         s.admission.limit = 3;
         s.admission.retry_after = -2;
       },
       "retry_after"},
      {[](auto& s) {
         s.admission.limit = 3;
         s.admission.overflow = mc::Overflow::queue;
         s.admission.retry_after = 2;
       },
       "retry_after"},
      {[](auto& s) { s.admission.retry_after_rule = mc::RetryAfterRule::uniform; }, "retry_after_rule"},
      {[](auto& s) {
         s.admission.limit = 3;
         s.admission.retry_after = 2;
         s.client.ignore_retry_after = 1.5;
       },
       "ignore_retry_after"},
      {[](auto& s) { s.client.ignore_retry_after = 0.5; }, "ignore_retry_after"},
      {[](auto& s) { s.admission.aimd_params.min = 5; }, "aimd"},  // aimd off
      {[](auto& s) {
         s.admission.aimd = true;
         s.admission.aimd_params.min = 0;
       },
       "aimd_min"},
      {[](auto& s) {
         s.admission.aimd = true;
         s.admission.aimd_params.max = 10;
       },
       "aimd_max"},
      {[](auto& s) {
         s.admission.aimd = true;
         s.admission.aimd_params.initial = 300;
       },
       "aimd_initial"},
      {[](auto& s) {
         s.admission.aimd = true;
         s.admission.aimd_params.backoff = 1.0;
       },
       "aimd_backoff"},
      {[](auto& s) {
         s.admission.aimd = true;
         s.admission.aimd_params.timeout = 0;
       },
       "aimd_timeout"},
      {[](auto& s) { s.client.mix = -0.1; }, "mix"},
      {[](auto& s) { s.client.mix_backoff.strategy = Strategy::full; }, "mix"},  // mix = 0
      {[](auto& s) {
         s.client.mix = 0.5;
         s.client.mix_backoff.base = 0;
       },
       "mix_base"},
      {[](auto& s) {
         s.client.mix = 0.5;
         s.client.mix_backoff = {Strategy::window, 1, 1000, 0};
       },
       "mix_window"},
      {[](auto& s) {  // strategy none, rejected in no time: would loop at one instant
         s.backoff.strategy = Strategy::none;
         s.admission.limit = 3;
       },
       "reject_cost"},
      {[](auto& s) { s.client.timeout = 0; }, "timeout"},
      {[](auto& s) { s.client.timeout = -1; }, "timeout"},
      {[](auto& s) { s.client.timeout = NAN; }, "timeout"},
      {[](auto& s) { s.client.max_attempts = -1; }, "max_attempts"},
      {[](auto& s) { s.client.max_attempts = mc::max_limit + 1; }, "max_attempts"},
      {[](auto& s) {
         s.client.retries = false;
         s.client.max_attempts = 2;
       },
       "max_attempts"},
      {[](auto& s) {
         s.client.retries = false;
         s.client.timeout = 2;
       },
       "timeout"},
  };
  for (const auto& [set, field] : cases) {
    mc::Scenario s = documented();
    set(s);
    try {
      mc::check_scenario(s);
      ADD_FAILURE() << "no error for " << field;
    } catch (const retrylab::InputError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  }
}

TEST(ServerExact, ThreadsNeverChangeAResult) {
  mc::Scenario s;
  s.model = Model::shared;
  s.traffic.rate = 0.8;
  s.traffic.clients = 50;
  s.measurement.horizon = 400;
  s.resource.rows = 3;
  s.resource.service = mc::ServiceDist::lognormal;
  s.resource.service_cv = 1.0;
  s.resource.delay = 0.1;
  s.resource.delay_dist = mc::DelayDist::exponential;
  s.admission.aimd = true;
  s.admission.aimd_params = {4, 2, 10, 0.9, 6.0};
  s.admission.reject_cost = 0.05;
  s.admission.retry_after = 2;
  s.admission.retry_after_rule = mc::RetryAfterRule::uniform;
  s.client.ignore_retry_after = 0.3;
  s.client.mix = 0.2;
  const auto one = mc::simulate(s, {8, 42, 1});
  const auto two = mc::simulate(s, {8, 42, 2});
  ASSERT_EQ(one.size(), two.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    // Bit-for-bit (NaN fields included): RunResult is plain data; compare its doubles' bits.
    const auto& a = one[i];
    const auto& b = two[i];
    const double xa[] = {a.stop_time,
                         a.latency,
                         a.goodput,
                         a.attempt_rate,
                         a.sojourn,
                         a.work_done,
                         a.busy_time,
                         a.metric("queue_wait"),
                         a.metric("mean_limit"),
                         a.metric("latency_p50"),
                         a.metric("latency_p99"),
                         a.mean_waiting};
    const double xb[] = {b.stop_time,
                         b.latency,
                         b.goodput,
                         b.attempt_rate,
                         b.sojourn,
                         b.work_done,
                         b.busy_time,
                         b.metric("queue_wait"),
                         b.metric("mean_limit"),
                         b.metric("latency_p50"),
                         b.metric("latency_p99"),
                         b.mean_waiting};
    EXPECT_EQ(std::memcmp(xa, xb, sizeof xa), 0) << "run " << i;
    EXPECT_EQ(a.attempts, b.attempts);
    EXPECT_EQ(a.metric("rejected"), b.metric("rejected"));
    EXPECT_EQ(a.successes, b.successes);
  }
  EXPECT_GT(one[0].metric("rejected"), 0);  // the scenario does exercise the limit
}

RC_GTEST_PROP(Server, ClientAccountingHolds, ()) {
  const Case c = *gen_case();
  const Run x = run(c);
  const auto& r = x.r;
  const auto& t = x.t;
  RC_ASSERT(!t.bad);
  RC_ASSERT(r.clients_arrived == static_cast<std::int64_t>(t.arrival.size()));
  RC_ASSERT(r.attempts == static_cast<std::int64_t>(t.attempts.size()));
  RC_ASSERT(r.metric("rejected") == t.rejects);
  // Server-side hooks exist only in the full tier (a case without server options runs engine.hpp).
  if (mc::has_server_features(c.s)) RC_ASSERT(r.metric("served") == static_cast<std::int64_t>(t.served.size()));
  RC_ASSERT(r.metric("served") + r.metric("rejected") <= r.attempts);
  std::vector<int> wins(t.arrival.size(), 0);
  std::int64_t successes = 0, gave_up = 0;
  for (const auto& a : t.attempts) {
    RC_ASSERT(a.sent >= t.arrival[static_cast<std::size_t>(a.client)]);
    if (a.ended && a.success) {
      ++successes;
      ++wins[static_cast<std::size_t>(a.client)];
    }
    if (a.ended && !a.success && !c.s.client.retries) ++gave_up;
    if (a.ended) RC_ASSERT(a.heard <= r.stop_time);
  }
  for (const int w : wins) RC_ASSERT(w <= 1);
  // Work conservation: one unit-rate server in shared/ps (rejections that cost work included).
  if (c.s.model == Model::shared || c.s.model == Model::ps)
    RC_ASSERT(std::abs(r.work_done - r.busy_time) <= 1e-9 * std::max(1.0, r.busy_time));
  RC_ASSERT(r.work_done >= r.busy_time * (1.0 - 1e-12));  // collision/free: >= 1 job at rate 1 when busy
  RC_ASSERT(r.successes == successes);
  const auto lost = static_cast<std::int64_t>(t.gave_up.size());
  RC_ASSERT(r.lost == lost);
  RC_ASSERT(r.metric("timed_out") == t.timeouts);
  RC_ASSERT(r.unfinished == r.clients_arrived - successes - gave_up - lost);
  RC_ASSERT(r.max_waiting <= c.s.measurement.collapse);
}

// On the original model (no server option) the full tier runs the plain tier's events: same streams
// drawn in the same order, same arithmetic for times, so the same counts and times exactly.
// work_done is integrated differently (sum of n·dt against per-attempt service),
// so it agrees to rounding only: 1e-9 relative (a run has < 10^4 events, each adding one rounding
// of at most ε = 2.2e-16 relative).
RC_GTEST_PROP(Server, OnTheOriginalModelEqualsTheOriginalEngine, ()) {
  Case c = *gen_case();
  c.s = mc::without_server_options(c.s);
  mc::detail::EngineOptions plain;
  plain.lockstep_shortcut = false;
  mc::detail::EngineOptions forced = plain;
  forced.full_tier = true;
  mc::detail::NullObserver n1, n2;
  const mc::RunResult a = mc::detail::run_engine(c.s, c.seed, 3, plain, n1);
  const mc::RunResult b = mc::detail::run_engine(c.s, c.seed, 3, forced, n2);
  auto same = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
  RC_ASSERT(a.stop == b.stop);
  RC_ASSERT(a.clients_arrived == b.clients_arrived);
  RC_ASSERT(a.attempts == b.attempts);
  RC_ASSERT(a.successes == b.successes);
  RC_ASSERT(a.unfinished == b.unfinished);
  RC_ASSERT(a.max_waiting == b.max_waiting);
  RC_ASSERT(same(a.stop_time, b.stop_time));
  RC_ASSERT(same(a.makespan, b.makespan));
  RC_ASSERT(same(a.drain_time, b.drain_time));
  RC_ASSERT(same(a.goodput, b.goodput));
  RC_ASSERT(same(a.attempt_rate, b.attempt_rate));
  RC_ASSERT(std::abs(a.latency - b.latency) <= 1e-9 * std::abs(a.latency) || same(a.latency, b.latency));
  RC_ASSERT(std::abs(a.sojourn - b.sojourn) <= 1e-9 * std::abs(a.sojourn) || same(a.sojourn, b.sojourn));
  RC_ASSERT(std::abs(a.busy_time - b.busy_time) <= 1e-9 * std::max(1.0, a.busy_time));
  RC_ASSERT(std::abs(a.work_done - b.work_done) <= 1e-9 * std::max(1.0, a.work_done));
}

TEST(Server, OnLongerRunsOfTheOriginalModelEqualsTheOriginalEngine) {
  // The property above on runs of thousands of attempts: every model and strategy, burst on steady.
  for (const Model m : retrylab::all_models) {
    for (const Strategy st : retrylab::all_strategies) {
      mc::Scenario s;
      s.model = m;
      s.backoff = {st, 1.0, 64.0, 40.0};
      s.traffic.clients = m == Model::collision ? 10 : 200;  // a larger burst never gets through collisions
      s.traffic.rate = m == Model::collision ? 0.1 : 0.3;
      s.measurement.horizon = 3000;
      s.measurement.warmup = 100;
      mc::detail::EngineOptions plain, forced;
      forced.full_tier = true;
      mc::detail::NullObserver n1, n2;
      const mc::RunResult a = mc::detail::run_engine(s, 5, 0, plain, n1);
      const mc::RunResult b = mc::detail::run_engine(s, 5, 0, forced, n2);
      EXPECT_EQ(a.attempts, b.attempts) << to_string(m) << " " << to_string(st);
      EXPECT_EQ(a.successes, b.successes) << to_string(m) << " " << to_string(st);
      EXPECT_EQ(a.stop_time, b.stop_time) << to_string(m) << " " << to_string(st);
      EXPECT_EQ(a.max_waiting, b.max_waiting) << to_string(m) << " " << to_string(st);
      if (m == Model::collision && st == Strategy::none) continue;  // retries at once: nobody gets through
      ASSERT_GT(a.successes, 0) << to_string(m) << " " << to_string(st);
      EXPECT_NEAR(a.latency, b.latency, 1e-9 * a.latency) << to_string(m) << " " << to_string(st);
    }
  }
}

TEST(Server, RunPlanCanAskForTheServerEngine) {
  mc::Scenario s;
  s.model = Model::shared;
  s.traffic.rate = 0.2;
  s.measurement.horizon = 500;
  mc::RunPlan plain{3, 9, 1};
  mc::RunPlan forced = plain;
  forced.server_engine = true;
  const auto a = mc::simulate(s, plain);
  const auto b = mc::simulate(s, forced);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].attempts, b[i].attempts);
    EXPECT_EQ(a[i].goodput, b[i].goodput);
    EXPECT_TRUE(std::isnan(a[i].metric("latency_p99")));  // not tracked by the original loop
    EXPECT_FALSE(std::isnan(b[i].metric("latency_p99")));
    EXPECT_GE(b[i].metric("latency_p99"), b[i].metric("latency_p50"));
  }
}

}  // namespace
