// The server's admission options (montecarlo/engine.hpp): network delay, the lock, a concurrency
// limit with its queue or rejections (their cost, Retry-After honoured or ignored), AIMD; exact
// hand-worked cases and rapidcheck properties on the full tier's traces (tests/montecarlo/
// server_cases.hpp). Expected values in the exact cases are worked out by hand in the comment beside
// each (every number is a sum of binary-exact values, so EXPECT_EQ is exact).
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

TEST(ServerExact, NetworkDelayAddsBothLegs) {
  // One client, ps: sent at 0, reaches the server at 0.25, served [0.25, 1.25), heard at 1.5.
  mc::Scenario s = burst(Model::ps, 1);
  s.resource.delay = 0.25;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.stop, mc::StopReason::finished);
  EXPECT_EQ(r.makespan, 1.5);
  EXPECT_EQ(r.latency, 1.5);
  EXPECT_EQ(r.sojourn, 1.5);
  EXPECT_EQ(r.work_done, 1.0);
}

TEST(ServerExact, LockServesABurstOneAtATime) {
  // 5 clients on one row behind a lock: served [0,1), [1,2), …, [4,5); all succeed at once.
  for (const Model m : retrylab::all_models) {
    mc::Scenario s = burst(m, 5);
    s.resource.lock = true;
    const mc::RunResult r = mc::simulate_run(s, 3, 0);
    EXPECT_EQ(r.stop, mc::StopReason::finished) << to_string(m);
    EXPECT_EQ(r.attempts, 5) << to_string(m);
    EXPECT_EQ(r.makespan, 5.0) << to_string(m);
    EXPECT_EQ(r.latency, 3.0) << to_string(m);               // (1+2+3+4+5)/5
    EXPECT_EQ(r.metric("queue_wait"), 2.0) << to_string(m);  // (0+1+2+3+4)/5
  }
}

TEST(ServerExact, LimitRejectsThenBackoffRetries) {
  // collision, 3 clients, limit 1, nojitter b = 1. t=0: c0 admitted [0,1); c1, c2 rejected, sleep
  // w1 = 1. t=1: c0 succeeds; c1 admitted [1,2), c2 rejected, sleeps w2 = 2. t=3: c2 admitted [3,4).
  mc::Scenario s = burst(Model::collision, 3);
  s.admission.limit = 1;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.attempts, 6);
  EXPECT_EQ(r.metric("rejected"), 3);
  EXPECT_EQ(r.metric("served"), 3);
  EXPECT_EQ(r.metric("reject_fraction"), 0.5);
  EXPECT_EQ(r.makespan, 4.0);
  EXPECT_EQ(r.work_done, 3.0);
  EXPECT_EQ(r.metric("mean_limit"), 1.0);
}

TEST(ServerExact, ARejectionCostsWhatItSays) {
  // As above with reject_cost 0.5: c1, c2 hear "no" at 0.5 and wake at 1.5; c1 admitted [1.5,2.5),
  // c2 rejected [1.5,2), wakes at 2 + w2 = 4, served [4,5). Work: 3 attempts + 3 rejections × 0.5.
  mc::Scenario s = burst(Model::collision, 3);
  s.admission.limit = 1;
  s.admission.reject_cost = 0.5;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.attempts, 6);
  EXPECT_EQ(r.metric("rejected"), 3);
  EXPECT_EQ(r.makespan, 5.0);
  EXPECT_EQ(r.work_done, 4.5);
  // On the shared (processor-sharing) server a rejection takes its share: t=0 three jobs, the two
  // rejections (0.5 each) end at V = 0.5, i.e. t = 1.5; c0 then alone, ends at t = 2.
  s.model = Model::shared;
  const mc::RunResult q = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(q.work_done, q.busy_time);
  EXPECT_EQ(q.work_done, static_cast<double>(q.metric("served")) + 0.5 * static_cast<double>(q.metric("rejected")));
}

TEST(ServerExact, RetryAfterHonouredOrIgnored) {
  // limit 1, Retry-After 3: c1, c2 sleep max(1, 3) = 3; t=3: c1 [3,4), c2 rejected, sleeps
  // max(w2 = 2, 3) = 3, served [6,7). Ignored by every client: the run of LimitRejectsThenBackoffRetries.
  mc::Scenario s = burst(Model::collision, 3);
  s.admission.limit = 1;
  s.admission.retry_after = 3;
  EXPECT_EQ(mc::simulate_run(s, 1, 0).makespan, 7.0);
  s.client.ignore_retry_after = 1.0;
  EXPECT_EQ(mc::simulate_run(s, 1, 0).makespan, 4.0);
}

TEST(ServerExact, QueueOverflowServesInOrder) {
  // limit 1, queue: served [0,1), [1,2), [2,3), no rejection, no conflict.
  mc::Scenario s = burst(Model::collision, 3);
  s.admission.limit = 1;
  s.admission.overflow = mc::Overflow::queue;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(r.metric("rejected"), 0);
  EXPECT_EQ(r.makespan, 3.0);
  EXPECT_EQ(r.metric("queue_wait"), 1.0);
}

TEST(ServerExact, RetriesOffRejectedClientsLeaveAfterTheWholeBurstArrived) {
  // 4 clients, limit 1, retries off: c0 served [0,1); c1..c3 rejected at 0 and leave. The run
  // finishes at 1 with every client arrived, one success.
  mc::Scenario s = burst(Model::free, 4);
  s.client.retries = false;
  s.admission.limit = 1;
  const mc::RunResult r = mc::simulate_run(s, 1, 0);
  EXPECT_EQ(r.stop, mc::StopReason::finished);
  EXPECT_EQ(r.clients_arrived, 4);
  EXPECT_EQ(r.successes, 1);
  EXPECT_EQ(r.metric("rejected"), 3);
  EXPECT_EQ(r.stop_time, 1.0);
}

// Conflicts only within a row, as docs/models.md §1 defines them for the model; a lock makes every
// served attempt succeed, one at a time per row.
RC_GTEST_PROP(Server, ConflictsOnlyWithinARow, ()) {
  Case c = *gen_case();
  RC_PRE(c.s.model != Model::none);  // its attempts fail only by injection, which this property leaves out
  c.s.failures.failure_prob = 0.0;   // an injected failure fails an attempt without a conflict
  c.s.failures.outage_start = c.s.failures.outage_end = 0.0;
  c.s.failures.outage_fraction = 1.0;
  const Run x = run(c);
  const auto& served = x.t.served;
  std::map<std::int32_t, std::vector<std::pair<std::int64_t, Served>>> by_row;
  for (const auto& [id, s] : served) by_row[s.row].emplace_back(id, s);
  for (const auto& [row, list] : by_row) {
    RC_ASSERT(row >= 0 && row < c.s.resource.rows);
    for (const auto& entry : list) {
      const auto& id = entry.first;  // not a structured binding: clang 14 cannot capture one in a lambda
      const auto& a = entry.second;
      if (!a.ended) continue;
      if (c.s.resource.lock || c.s.model == Model::ps) {
        RC_ASSERT(a.success);
      } else if (c.s.model == Model::collision) {
        // Fails iff another attempt on its row overlaps [start, end) (half-open; still in service: to +inf).
        const bool overlap = std::any_of(list.begin(), list.end(), [&](const auto& o) {
          if (o.first == id) return false;
          const double oe = o.second.ended ? o.second.end : INFINITY;
          return o.second.start < a.end && a.start < oe;
        });
        RC_ASSERT(a.success == !overlap);
      } else {
        // First commit wins on the row: a successful commit on it in (start, end) dooms it.
        const bool doomed = std::any_of(list.begin(), list.end(), [&](const auto& o) {
          return o.first != id && o.second.ended && o.second.success && o.second.end > a.start && o.second.end < a.end;
        });
        if (doomed) RC_ASSERT(!a.success);
      }
    }
    if (c.s.resource.lock) {  // at most one in service per row
      std::vector<std::pair<double, double>> iv;
      for (const auto& [id, a] : list) iv.emplace_back(a.start, a.ended ? a.end : INFINITY);
      std::sort(iv.begin(), iv.end());
      for (std::size_t i = 1; i < iv.size(); ++i) RC_ASSERT(iv[i].first >= iv[i - 1].second);
    }
    if (c.s.model == Model::free || c.s.model == Model::shared) {
      // Simultaneous ends on a row with an eligible attempt: exactly one success.
      std::map<double, std::pair<int, int>> groups;  // end -> (eligible, successes)
      for (const auto& entry : list) {
        const auto& a = entry.second;  // not a structured binding: clang 14 cannot capture one in a lambda
        if (!a.ended) continue;
        const bool eligible = !std::any_of(list.begin(), list.end(), [&](const auto& o) {
          return o.second.ended && o.second.success && o.second.end > a.start && o.second.end < a.end;
        });
        auto& g = groups[a.end];
        g.first += eligible;
        g.second += a.success;
      }
      for (const auto& [end, g] : groups) RC_ASSERT(g.second == (g.first > 0 ? 1 : 0));
    }
  }
}

RC_GTEST_PROP(Server, ConcurrencyLimitNeverExceeded, ()) {
  const Case c = *gen_case();
  const Run x = run(c);
  const auto& o = c.s;
  for (const auto& [admitted, limit] : x.t.admits) {
    if (o.admission.limit > 0) RC_ASSERT(limit == o.admission.limit);
    if (o.admission.aimd) RC_ASSERT(limit >= o.admission.aimd_params.min && limit <= o.admission.aimd_params.max);
    if (o.admission.limit > 0 || o.admission.aimd) RC_ASSERT(admitted <= limit);
  }
  if (o.admission.limit == 0 && !o.admission.aimd) RC_ASSERT(x.r.metric("rejected") == 0);
  if (o.admission.overflow == mc::Overflow::queue) RC_ASSERT(x.r.metric("rejected") == 0);
}

RC_GTEST_PROP(Server, RetryAfterHonouredMeansNoEarlyReturn, ()) {
  const Case c = *gen_case();
  RC_PRE(c.s.client.ignore_retry_after == 0.0);
  const Run x = run(c);
  RC_ASSERT(!x.t.early_return);
}

TEST(ServerExact, AimdHalvesOnConflictsAndGrowsOnSuccess) {
  // collision, 4 clients, nojitter b = 1, AIMD initial 2, min 1, max 10, backoff 0.5, reject_cost
  // 0.25. t=0: c0, c1 admitted (limit 2); c2, c3 rejected (heard 0.25, wake 1.25). t=1: c0 and c1
  // collide: limit 2 → floor(2·0.5) = 1 → floor(0.5) = 0, clamped to 1. t=1.25: c2 admitted under
  // limit 1, c3 rejected (heard 1.5, wakes 1.5 + w2 = 3.5). t=2.25: c2 succeeds with inflight 1
  // (2·1 >= 1): limit 2. t=3.5: c3 admitted under limit 2.
  mc::Scenario s = burst(Model::collision, 4);
  s.admission.aimd = true;
  s.admission.aimd_params = {2, 1, 10, 0.5, retrylab::unbounded_cap};
  s.admission.reject_cost = 0.25;
  ServerTrace t;
  mc::testing::run_engine(s, 1, 0, mc::detail::EngineOptions{}, t);
  ASSERT_GE(t.admit_log.size(), 4u);
  EXPECT_EQ(t.admit_log[0], (std::tuple<double, std::int64_t, std::int64_t>{0.0, 1, 2}));
  EXPECT_EQ(t.admit_log[1], (std::tuple<double, std::int64_t, std::int64_t>{0.0, 2, 2}));
  EXPECT_EQ(t.admit_log[2], (std::tuple<double, std::int64_t, std::int64_t>{1.25, 1, 1}));
  EXPECT_EQ(t.admit_log[3], (std::tuple<double, std::int64_t, std::int64_t>{3.5, 1, 2}));
}

// A planted check that the Retry-After property can fail: clients that all ignore it come back
// earlier than it says (strategy none: at once).
TEST(Server, IgnoringRetryAfterReturnsEarly) {
  mc::Scenario s = burst(Model::collision, 4, Strategy::none);
  s.admission.limit = 1;
  s.admission.retry_after = 5;
  s.admission.reject_cost = 0.25;
  s.client.ignore_retry_after = 1.0;
  ServerTrace t;
  mc::testing::run_engine(s, 1, 0, mc::detail::EngineOptions{}, t);
  EXPECT_TRUE(t.early_return);
}

}  // namespace
