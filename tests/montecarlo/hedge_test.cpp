// Hedged requests (components/hedge.hpp). Exact cases worked by hand (deterministic service, so
// every time below is exact), properties over seeded random scenarios (rapidcheck, fixed seed: a
// request is answered at most once, has at most hedge_attempts attempts, and hedging that never
// fires changes no number of the run), the token bucket's throttle, and the rules naming their field.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/p_square.hpp"
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

// Per client serial: its attempts' send times, successes heard, and cancellations; and the on_end
// hooks told. Read from the tests' client-side observer (trace.hpp) after a run.
struct HedgeObserver {
  std::map<std::int64_t, std::vector<double>> sends;
  std::map<std::int64_t, int> answers, cancels;
  std::int64_t ends = 0;
  void take(const mc::testing::TraceObserver& t) {
    ASSERT_FALSE(t.bad_serial);
    sends = t.sends_by_client();
    answers = t.answers_by_client();
    cancels = t.cancels_by_client();
    ends = static_cast<std::int64_t>(t.end_order.size());
  }
};

// A run on the full build (it holds the hedge component), observed.
mc::RunResult run_full_build(const mc::Scenario& s, std::uint64_t seed, std::uint64_t run,
                             const mc::detail::EngineOptions& options, HedgeObserver& o) {
  mc::testing::TraceObserver t;
  const mc::RunResult r = mc::testing::run_engine_build<mc::detail::FullParts>(s, seed, run, options, t);
  o.take(t);
  return r;
}

mc::RunResult run_full(const mc::Scenario& s, HedgeObserver& o, std::uint64_t run = 0) {
  mc::check_scenario(s);
  return run_full_build(s, 7, run, mc::detail::EngineOptions{}, o);
}

// One client on an uncontended dependency (model none), every attempt served for exactly 1.
mc::Scenario one_client(std::int64_t attempts, double delay) {
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 10.0, 0.0};
  s.traffic.clients = 1;
  s.client.hedge.attempts = attempts;
  s.client.hedge.delay = delay;
  return s;
}

}  // namespace

TEST(Hedge, TheFirstAnswerCancelsTheOthers) {
  // Sends at 0, 0.4, 0.8; the first ends at 1 and answers; the two hedges are cancelled there, having
  // received 0.6 and 0.2 of service: work 1 + 0.6 + 0.2.
  HedgeObserver o;
  const mc::RunResult r = run_full(one_client(3, 0.4), o);
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(r.successes, 1);
  EXPECT_DOUBLE_EQ(r.latency, 1.0);
  EXPECT_NEAR(r.work_done, 1.8, 1e-12);
  EXPECT_EQ(r.metric("hedges"), 2);
  EXPECT_EQ(r.metric("hedges_cancelled"), 2);
  EXPECT_EQ(r.metric("hedge_wins"), 0);
  EXPECT_EQ(o.sends[0], (std::vector<double>{0.0, 0.4, 0.8}));
  EXPECT_EQ(o.cancels[0], 2);
  EXPECT_EQ(o.ends, 1);  // a cancelled attempt has no on_end
}

TEST(Hedge, WithoutCancellingTheOthersRunToTheirEnd) {
  // Settling keeps the run open until every attempt has ended (a pure burst stops when its last
  // client leaves, at 1).
  mc::Scenario s = one_client(3, 0.4);
  s.client.hedge.cancel = false;
  s.client.retries = false;
  s.measurement.settle = true;
  HedgeObserver o;
  const mc::RunResult r = run_full(s, o);
  EXPECT_EQ(r.successes, 1);
  EXPECT_DOUBLE_EQ(r.latency, 1.0);
  EXPECT_EQ(r.metric("hedges_cancelled"), 0);
  EXPECT_EQ(o.answers[0], 1);  // the late successes at 1.4 and 1.8 answer nothing
  EXPECT_EQ(o.ends, 3);
  EXPECT_DOUBLE_EQ(r.stop_time, 1.8);
  EXPECT_NEAR(r.work_done, 3.0, 1e-12);
}

TEST(Hedge, AFailureSendsTheNextHedgeAtOnce) {
  // Every attempt fails (failure_prob 1) and the delay is long: the hedges go at each failure, 1 and
  // 2, and the request fails at 3 when the third has failed (retries off: the client leaves).
  mc::Scenario s = one_client(3, 5.0);
  s.failures.failure_prob = 1.0;
  s.client.retries = false;
  HedgeObserver o;
  const mc::RunResult r = run_full(s, o);
  EXPECT_EQ(o.sends[0], (std::vector<double>{0.0, 1.0, 2.0}));
  EXPECT_EQ(r.successes, 0);
  EXPECT_DOUBLE_EQ(r.stop_time, 3.0);
}

TEST(Hedge, OnProcessorSharingAHedgeSlowsItsOwnRequest) {
  // ps, one client, service 1, hedge at 0.5: the two share the server from 0.5, so the first needs
  // its last 0.5 at rate 1/2 and answers at 1.5 (unhedged: 1); the hedge is cancelled then.
  mc::Scenario s = one_client(2, 0.5);
  s.model = Model::ps;
  HedgeObserver o;
  const mc::RunResult r = run_full(s, o);
  EXPECT_DOUBLE_EQ(r.latency, 1.5);
  EXPECT_EQ(r.metric("hedges_cancelled"), 1);
}

TEST(Hedge, ARetryLimitCountsFailedRequests) {
  // Two requests of three attempts each (the retry limit counts the client's failed requests).
  mc::Scenario s = one_client(3, 0.25);
  s.failures.failure_prob = 1.0;
  s.client.max_attempts = 2;
  HedgeObserver o;
  const mc::RunResult r = run_full(s, o);
  EXPECT_EQ(r.attempts, 6);
  EXPECT_EQ(r.lost, 1);
}

TEST(Hedge, TheTokenBucketThrottlesHedges) {
  // gRPC's bucket (per-failure): 1 token, threshold 0.5. The hedge at 0.6 goes (1 > 0.5); the first
  // failure at 1 takes the token, so the next hedge (due at once) is refused, and none goes after:
  // the request fails when the hedge fails, at 1.6.
  mc::Scenario s = one_client(3, 0.6);
  s.failures.failure_prob = 1.0;
  s.client.retries = true;
  s.client.max_attempts = 1;
  s.client.budget.preset = 5;  // token-bucket
  s.client.budget.charge = 1;
  s.client.budget.capacity = 1.0;
  s.client.budget.cost = 1.0;
  s.client.budget.threshold = 0.5;
  HedgeObserver o;
  const mc::RunResult r = run_full(s, o);
  EXPECT_EQ(o.sends[0], (std::vector<double>{0.0, 0.6}));
  EXPECT_EQ(r.metric("hedges_throttled"), 1);
  EXPECT_EQ(r.lost, 1);
  EXPECT_DOUBLE_EQ(r.stop_time, 1.6);
}

TEST(Hedge, WithTheBucketEmptyNoHedgeIsSent) {
  // An empty bucket from the start (capacity 1, threshold 0.999, a failure at once drains it):
  // a burst on a dependency that fails everything sends hedges only before the first failure.
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 10.0, 0.0};
  s.traffic.clients = 20;
  s.failures.failure_prob = 1.0;
  s.client.max_attempts = 3;
  s.client.hedge.attempts = 3;
  s.client.hedge.delay = 2.0;  // later than the first failures at 1
  s.client.budget.preset = 5;
  s.client.budget.charge = 1;
  s.client.budget.capacity = 1.0;
  s.client.budget.cost = 1.0;
  s.client.budget.threshold = 0.5;
  HedgeObserver o;
  const mc::RunResult r = run_full(s, o);
  EXPECT_EQ(r.metric("hedges"), 0);
  EXPECT_GT(r.metric("hedges_throttled"), 0);
}

RC_GTEST_PROP(Hedge, AnsweredAtMostOnceAndNeverMoreAttemptsThanAllowed, ()) {
  mc::Scenario s;
  s.model = *rc::gen::element(Model::ps, Model::none, Model::free, Model::collision, Model::shared);
  s.backoff = {Strategy::full, 1.0, 20.0, 0.0};
  s.resource.service = *rc::gen::element(mc::ServiceDist::deterministic, mc::ServiceDist::exponential);
  s.traffic.clients = *rc::gen::inRange<std::int64_t>(1, 40);
  s.traffic.rate = *rc::gen::element(0.0, 0.2, 0.6);
  if (s.traffic.rate > 0.0) s.measurement.horizon = 200.0;
  s.client.retries = false;  // one request per client: its attempts are the request's
  s.failures.failure_prob = *rc::gen::element(0.0, 0.3);
  s.client.hedge.attempts = *rc::gen::inRange<std::int64_t>(2, 6);
  s.client.hedge.delay = *rc::gen::element(0.0, 0.3, 1.0, 2.5);
  s.client.hedge.cancel = *rc::gen::arbitrary<bool>();
  HedgeObserver o;
  const mc::RunResult r = run_full(s, o, *rc::gen::inRange<std::uint64_t>(0, 1000));
  std::int64_t answered = 0;
  for (const auto& [client, n] : o.answers) {
    RC_ASSERT(n == 1);
    answered += n;
  }
  for (const auto& [client, times] : o.sends)
    RC_ASSERT(static_cast<std::int64_t>(times.size()) <= s.client.hedge.attempts);
  RC_ASSERT(answered == r.successes);
  RC_ASSERT(r.metric("hedge_wins") <= r.successes);
  if (!s.client.hedge.cancel) RC_ASSERT(r.metric("hedges_cancelled") == 0.0);
}

RC_GTEST_PROP(Hedge, HedgingThatNeverFiresChangesNothing, ()) {
  // No attempt fails (ps, none) and the delay is beyond the run: no hedge is ever sent, so keyed by
  // the unhedged scenario (as common random numbers are) every draw and every number is the same.
  mc::Scenario s;
  s.model = *rc::gen::element(Model::ps, Model::none);
  s.backoff = {Strategy::full, 1.0, 20.0, 0.0};
  s.resource.service = *rc::gen::element(mc::ServiceDist::deterministic, mc::ServiceDist::exponential);
  s.traffic.clients = *rc::gen::inRange<std::int64_t>(1, 30);
  s.traffic.rate = *rc::gen::element(0.0, 0.3, 0.7);
  if (s.traffic.rate > 0.0) s.measurement.horizon = 300.0;
  mc::Scenario q = s;
  q.client.hedge.attempts = *rc::gen::inRange<std::int64_t>(2, 6);
  q.client.hedge.delay = 1e12;
  mc::detail::EngineOptions options;
  options.scenario_hash = mc::stable_hash(s);
  const auto run = *rc::gen::inRange<std::uint64_t>(0, 1000);
  mc::detail::NullObserver none;
  const mc::RunResult a = mc::detail::run_engine(s, 11, run, options, none);
  HedgeObserver o;
  mc::check_scenario(q);
  const mc::RunResult b = run_full_build(q, 11, run, options, o);
  RC_ASSERT(a.attempts == b.attempts);
  RC_ASSERT(a.successes == b.successes);
  RC_ASSERT(same_bits(a.stop_time, b.stop_time));
  RC_ASSERT(same_bits(a.latency, b.latency));
  RC_ASSERT(same_bits(a.sojourn, b.sojourn));
  RC_ASSERT(b.metric("hedges") == 0.0);
}

RC_GTEST_PROP(Hedge, OneAttemptIsTheUnhedgedEngineBitForBit, ()) {
  // hedge_attempts 1 (the default) through the full build, which holds the hedge component, its lane
  // and the cancellation checks, against the build the scenario takes without it.
  mc::Scenario s;
  s.model = *rc::gen::element(Model::collision, Model::free, Model::shared, Model::ps, Model::none);
  s.backoff = {*rc::gen::element(Strategy::full, Strategy::equal, Strategy::decorrelated), 1.0, 50.0, 0.0};
  s.resource.service = *rc::gen::element(mc::ServiceDist::deterministic, mc::ServiceDist::exponential);
  s.traffic.clients = *rc::gen::inRange<std::int64_t>(1, 40);
  s.traffic.rate = *rc::gen::element(0.0, 0.2, 0.5);
  if (s.traffic.rate > 0.0) s.measurement.horizon = 300.0;
  s.client.hedge.attempts = 1;
  mc::check_scenario(s);
  mc::detail::EngineOptions options;
  options.full_tier = true;
  const auto run = *rc::gen::inRange<std::uint64_t>(0, 1000);
  mc::detail::NullObserver none;
  const mc::RunResult a = mc::detail::run_engine(s, 3, run, options, none);
  HedgeObserver o;
  const mc::RunResult b = run_full_build(s, 3, run, options, o);
  RC_ASSERT(a.attempts == b.attempts);
  RC_ASSERT(a.successes == b.successes);
  RC_ASSERT(same_bits(a.stop_time, b.stop_time));
  RC_ASSERT(same_bits(a.latency, b.latency));
  RC_ASSERT(same_bits(a.work_done, b.work_done));
}

TEST(Hedge, ThePercentileDelayIsWhatTheAnsweredRequestsTook) {
  // Every request on `none` with service 1 takes exactly 1 unless hedged first, so once one is
  // answered (at 1) the estimate is 1 and a hedge due at send + 1 comes after its request's end (ends
  // before sends at one instant): only the requests sent before 1, on hedge_delay 0.5, are hedged.
  mc::Scenario s = one_client(2, 0.5);
  s.traffic.clients = 3;
  s.traffic.rate = 0.3;
  s.measurement.horizon = 400.0;
  s.measurement.settle = true;  // no stop when the burst has drained: the steady arrivals go on
  s.client.retries = false;
  s.client.hedge.percentile = 95.0;
  HedgeObserver o;
  const mc::RunResult r = run_full(s, o);
  std::int64_t early = 0;
  for (const auto& [client, times] : o.sends)
    if (times.front() < 1.0) ++early;
  EXPECT_GE(early, 3);
  EXPECT_GT(r.successes, 50);
  EXPECT_EQ(r.metric("hedges"), early);
  s.client.hedge.percentile = 0.0;  // off: every request is hedged at 0.5, so every answered one was
  HedgeObserver off;
  const mc::RunResult all = run_full(s, off);
  EXPECT_GE(all.metric("hedges"), static_cast<double>(all.successes));
}

TEST(Hedge, PSquareIsExactForFewValuesAndCloseForMany) {
  mc::PSquare few(0.5);
  EXPECT_TRUE(std::isnan(few.estimate()));
  for (double x : {3.0, 1.0, 2.0}) few.add(x);
  EXPECT_EQ(few.estimate(), 2.0);  // nearest rank: the 2nd of 3
  // Exponential quantiles of a Weyl sequence (no library distribution: the same numbers everywhere).
  for (double p : {0.5, 0.9, 0.99}) {
    mc::PSquare q(p);
    for (int i = 1; i <= 100000; ++i) {
      const double u = std::fmod(i * 0.6180339887498949, 1.0);
      q.add(-std::log1p(-u));
    }
    EXPECT_NEAR(q.estimate(), -std::log1p(-p), 0.02 * -std::log1p(-p)) << p;
  }
}

TEST(Hedge, RulesNameTheirField) {
  mc::Scenario s = one_client(1, 0.0);
  s.client.hedge.delay = 2.0;
  EXPECT_EQ(refused_field(s), "hedge_delay");  // without hedging
  s = one_client(1, 0.0);
  s.client.hedge.cancel = false;
  EXPECT_EQ(refused_field(s), "hedge_cancel");
  s = one_client(1, 0.0);
  s.client.hedge.percentile = 90.0;
  EXPECT_EQ(refused_field(s), "hedge_percentile");
  s = one_client(2, 0.0);
  s.client.hedge.percentile = 100.0;
  EXPECT_EQ(refused_field(s), "hedge_percentile");
  s = one_client(6, 1.0);
  EXPECT_EQ(refused_field(s), "hedge_attempts");  // gRPC's cap is 5
  s = one_client(0, 1.0);
  EXPECT_EQ(refused_field(s), "hedge_attempts");
  s = one_client(2, -1.0);
  EXPECT_EQ(refused_field(s), "hedge_delay");
  s = one_client(2, mc::detail::inf);
  EXPECT_EQ(refused_field(s), "hedge_delay");
  s = one_client(2, 1.0);
  s.client.timeout = 3.0;  // each attempt's own (Finagle's timeout under backup requests)
  EXPECT_EQ(refused_field(s), "(accepted)");
  s = one_client(2, 1.0);
  s.client.deadline = 3.0;  // a deadline that does not cancel would let hedges go past it
  EXPECT_EQ(refused_field(s), "hedge_attempts");
  s.client.deadline_cancel = true;
  EXPECT_EQ(refused_field(s), "(accepted)");
  s = one_client(2, 1.0);
  s.client.breaker.preset = 1;
  s.client.attempt_ms = 1.0;
  EXPECT_EQ(refused_field(s), "hedge_attempts");
  s = one_client(2, 1.0);
  s.client.budget.preset = 1;  // aws-standard: charged per retry
  EXPECT_EQ(refused_field(s), "hedge_attempts");
  s.client.budget.preset = 2;  // grpc
  EXPECT_EQ(refused_field(s), "(accepted)");
  s.client.budget.preset = 3;  // finagle: a hedge withdraws as a retry does (its window is in ms)
  s.client.attempt_ms = 1.0;
  EXPECT_EQ(refused_field(s), "(accepted)");
  s = one_client(2, 1.0);  // cancelling wherever the attempt is: on the network, in a queue, behind AIMD
  s.resource.delay = 0.5;
  s.admission.limit = 2;
  s.admission.overflow = mc::Overflow::queue;
  EXPECT_EQ(refused_field(s), "(accepted)");
  s.client.hedge.in_service = mc::InService::finish;
  EXPECT_EQ(refused_field(s), "(accepted)");
  s.client.hedge.cancel = false;
  EXPECT_EQ(refused_field(s), "hedge_in_service");
  s = one_client(1, 0.0);
  s.client.hedge.in_service = mc::InService::finish;
  EXPECT_EQ(refused_field(s), "hedge_in_service");
}
