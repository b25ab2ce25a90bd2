// The client-side controls on the full tier (montecarlo/engine.hpp): timeouts that orphan attempts,
// retry limits, mixed clients with their own backoff; exact hand-worked cases and rapidcheck
// properties on the full tier's traces (tests/montecarlo/server_cases.hpp). Expected values in the
// exact cases are worked out by hand in the comment beside each (EXPECT_EQ is exact).
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

TEST(ServerExact, MixedClientsUseTheirOwnBackoff) {
  // The limit case with every client on nojitter b = 2 (mix = 1): c1, c2 rejected at 0 sleep 2;
  // t=2: c1 [2,3), c2 rejected, sleeps w2 = 4; served [6,7).
  mc::Scenario s = burst(Model::collision, 3);
  s.admission.limit = 1;
  s.client.mix = 1.0;
  s.client.mix_backoff = {Strategy::nojitter, 2.0, 1000.0, 0.0};
  EXPECT_EQ(mc::simulate_run(s, 1, 0).makespan, 7.0);
}

// Client timeouts and retry limits: no client makes more than max_attempts attempts, one that gives
// up made exactly that many and none succeeded; a client hears of every attempt by send + timeout,
// exactly then when it timed out; a timed-out attempt is never a success for its client.
RC_GTEST_PROP(Server, RetryLimitAndTimeoutHold, ()) {
  const Case c = *gen_case();
  const Run x = run(c);
  const auto& o = c.s;
  std::map<std::int64_t, std::int64_t> made, won;
  for (const auto& a : x.t.attempts) {
    ++made[a.client];
    if (a.ended && a.success) ++won[a.client];
    if (a.ended) RC_ASSERT(a.heard <= a.sent + o.client.timeout);
    if (a.timed_out) {
      RC_ASSERT(std::isfinite(o.client.timeout));
      RC_ASSERT(a.ended && !a.success);
      RC_ASSERT(a.heard == a.sent + o.client.timeout);
    }
  }
  if (o.client.max_attempts > 0)
    for (const auto& [client, n] : made) RC_ASSERT(n <= o.client.max_attempts);
  // A budget's refusal, a breaker's local rejections and a deadline also end requests, earlier.
  const bool other_ends =
      o.client.budget.preset != 0 || o.client.breaker.preset != 0 || std::isfinite(o.client.deadline);
  for (const std::int64_t client : x.t.gave_up) {
    if (!other_ends) {
      RC_ASSERT(o.client.max_attempts > 0);
      RC_ASSERT(made[client] == o.client.max_attempts);
    }
    RC_ASSERT(won[client] == 0);
  }
  if (o.client.max_attempts == 0 && !other_ends) RC_ASSERT(x.t.gave_up.empty());
  if (std::isinf(o.client.timeout)) RC_ASSERT(x.t.timeouts == 0);
  const std::int64_t ended = x.r.successes + x.r.lost;
  if (ended > 0) RC_ASSERT(x.r.lost_fraction == static_cast<double>(x.r.lost) / static_cast<double>(ended));
}

RC_GTEST_PROP(Server, MixedNoneClientsNeverSleep, ()) {
  Case c = *gen_case();
  c.s.client.mix = 1.0;
  c.s.client.mix_backoff = {Strategy::none, 1.0, 1000.0, 0.0};
  c.s.admission.retry_after = 0.0;
  c.s.admission.retry_after_rule = mc::RetryAfterRule::fixed;
  c.s.client.ignore_retry_after = 0.0;
  if ((c.s.admission.limit > 0 || c.s.admission.aimd) && c.s.admission.overflow == mc::Overflow::reject)
    c.s.admission.reject_cost = 0.25;
  // Local rejections (a breaker, adaptive throttling) of clients that never sleep need a retry limit.
  if ((c.s.client.breaker.preset != 0 || c.s.client.budget.preset != 0) && c.s.client.max_attempts == 0)
    c.s.client.max_attempts = 3;
  mc::check_scenario(c.s);
  const Run x = run(c);
  for (const double s : x.t.sleeps) RC_ASSERT(s == 0.0);
}

TEST(ServerExact, TimeoutOrphansTheAttemptAndTheRetryLimitLosesTheClient) {
  // ps, one client on strategy none, timeout 0.5, at most 3 attempts: sent at 0, 0.5, 1; each times
  // out (service 1 alone would end at 1, but the server shares itself with the orphans); at 1.5 the
  // third times out and the client gives up: lost. The server kept working on the orphans: busy
  // [0, 1.5], so work done 1.5. Nothing succeeded, so no makespan; the burst has left: drained.
  mc::Scenario s = burst(Model::ps, 1, Strategy::none);
  s.client.timeout = 0.5;
  s.client.max_attempts = 3;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.stop, mc::StopReason::finished);
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(r.metric("timed_out"), 3);
  EXPECT_EQ(r.successes, 0);
  EXPECT_EQ(r.lost, 1);
  EXPECT_EQ(r.lost_fraction, 1.0);
  EXPECT_EQ(r.stop_time, 1.5);
  EXPECT_TRUE(r.drained);
  EXPECT_EQ(r.drain_time, 1.5);
  EXPECT_TRUE(std::isnan(r.makespan));
  EXPECT_EQ(r.work_done, 1.5);
  EXPECT_EQ(r.sojourn, 0.5);  // the client's view: each attempt lasted its timeout
}

TEST(ServerExact, AResponseAtTheTimeoutCounts) {
  // ps, one client, service 1, timeout exactly 1: the outcome and the timeout fall at t = 1, and
  // responses come before timeouts at one instant, so the attempt succeeds.
  mc::Scenario s = burst(Model::ps, 1, Strategy::none);
  s.client.timeout = 1.0;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.successes, 1);
  EXPECT_EQ(r.metric("timed_out"), 0);
  EXPECT_EQ(r.makespan, 1.0);
  EXPECT_EQ(r.lost_fraction, 0.0);
}

TEST(ServerExact, RetryLimitOnCollidingClients) {
  // collision, 2 clients on strategy none, at most 4 attempts: they collide at 0, 1, 2, 3 and both
  // give up at 4: 8 attempts, 2 lost, the burst has left at 4.
  mc::Scenario s = burst(Model::collision, 2, Strategy::none);
  s.client.max_attempts = 4;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.attempts, 8);
  EXPECT_EQ(r.successes, 0);
  EXPECT_EQ(r.lost, 2);
  EXPECT_EQ(r.metric("timed_out"), 0);
  EXPECT_EQ(r.drain_time, 4.0);
  EXPECT_EQ(r.unfinished, 0);
}

}  // namespace
