// Adaptive client rate limiting (components/adaptive_rate.hpp, botocore's adaptive mode). The
// limiter's arithmetic against botocore's own numbers (worked by hand from retries/adaptive.py,
// bucket.py and throttling.py for the first steps; the later ones as botocore 1.29.27 computes them
// with a fake clock); an exact burst through the engine, worked by hand; a scenario without
// throttling left as it was; capped amplification under overload when rejections are throttled;
// the refusals of fields that cannot apply.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "montecarlo/builds.hpp"
#include "montecarlo/components/adaptive_rate.hpp"
#include "montecarlo/engine.hpp"
#include "montecarlo/run_engine.hpp"
#include "montecarlo/scenario.hpp"
#include "montecarlo/simulate.hpp"
#include "tests/support/scenario_checks.hpp"

namespace mc = retrylab::montecarlo;
namespace d = retrylab::montecarlo::detail;
using retrylab::Model;
using retrylab::Strategy;
using retrylab::montecarlo::FailureKind;
using retrylab::test::refused_field;
using retrylab::test::same_bits;

namespace {

mc::RunResult simulate(const mc::Scenario& s, std::uint64_t seed = 5) {
  mc::check_scenario(s);
  return mc::simulate_run(s, seed, 0);
}

// A full-build run whose streams do not depend on the scenario (its key takes a fixed hash in place
// of the scenario's), so two scenarios that differ by one field draw the same numbers.
mc::RunResult same_streams(const mc::Scenario& s, std::uint64_t seed) {
  mc::check_scenario(s);
  d::EngineOptions options;
  options.scenario_hash = 42;
  d::NullObserver observer;
  // The library's copy of the full build's loops (run_engine.hpp declares them): no loop compiled here.
  return d::run_engine_build<d::FullParts>(s, seed, 0, options, observer);
}

}  // namespace

TEST(AdaptiveRate, LimiterArithmeticIsBotocores) {
  d::BotocoreRateLimiter b;  // created at t = 0 s: fill rate 1, capacity 0, measured rate 0
  // 0.2 s, a success: bucket floor(0.4)/2 = 0 is not past the last (0): count 1, measured 0. CUBIC
  // 0.4·(0.2 − 0)^3 + 0 = 0.0032, and min(0.0032, 2·0) = 0: the rate floors at 0.5, the capacity
  // at 1, after a refill at the old rate: min(1, 0 + 0.2·1) = 0.2. Still off.
  b.on_response(0.2, false);
  EXPECT_FALSE(b.enabled);
  EXPECT_EQ(b.measured, 0.0);
  EXPECT_EQ(b.fill, 0.5);
  EXPECT_EQ(b.max_capacity, 1.0);
  EXPECT_DOUBLE_EQ(b.capacity, 0.2);
  // 0.6 s, a throttling error: bucket 0.5 > 0, count 2 over 0.5 s: rate 4, measured 0.8·4 = 3.2.
  // Off, so CUBIC takes the measured rate: w_max 3.2, k = (3.2·0.3/0.4)^(1/3) = 2.4^(1/3), new
  // rate 0.7·3.2 = 2.24 = min(2.24, 6.4); refill at 0.5: 0.2 + 0.4·0.5 = 0.4. On from now.
  b.on_response(0.6, true);
  EXPECT_TRUE(b.enabled);
  EXPECT_DOUBLE_EQ(b.measured, 3.2);
  EXPECT_DOUBLE_EQ(b.w_max, 3.2);
  EXPECT_DOUBLE_EQ(b.k, std::cbrt(2.4));
  EXPECT_DOUBLE_EQ(b.fill, 2.24);
  EXPECT_DOUBLE_EQ(b.max_capacity, 2.24);
  EXPECT_DOUBLE_EQ(b.capacity, 0.4);
  // Botocore's exact bits there (fake clock): 2.2399999999999998, k 1.338865900164339.
  EXPECT_EQ(b.fill, 2.2399999999999998);
  EXPECT_EQ(b.k, 1.338865900164339);
  // 1.0 s, a success: bucket 1.0 > 0.5, count 1 over 0.5 s: rate 2, measured 0.8·2 + 0.2·3.2 = 2.24;
  // CUBIC 0.4·(0.4 − 2.4^(1/3))^3 + 3.2; refill at 2.24: min(2.24, 0.4 + 0.4·2.24) = 1.296.
  b.on_response(1.0, false);
  EXPECT_DOUBLE_EQ(b.measured, 2.24);
  EXPECT_DOUBLE_EQ(b.fill, 0.4 * std::pow(0.4 - std::cbrt(2.4), 3.0) + 3.2);
  EXPECT_EQ(b.fill, 2.8689674585074227);  // botocore
  EXPECT_DOUBLE_EQ(b.capacity, 1.296);
  // Then as botocore computes them (1.7 s success, 2.4 s throttling error: min(measured, rate) =
  // 2.0096 is the new w_max, 2.5 s success).
  b.on_response(1.7, false);
  EXPECT_EQ(b.measured, 2.048);
  EXPECT_EQ(b.fill, 3.1945484191435627);
  EXPECT_EQ(b.capacity, 2.8689674585074227);
  b.on_response(2.4, true);
  EXPECT_EQ(b.measured, 2.0096);
  EXPECT_EQ(b.w_max, 2.0096);
  EXPECT_EQ(b.k, 1.14654286266262);
  EXPECT_EQ(b.fill, 1.4067199999999997);
  EXPECT_EQ(b.capacity, 1.4067199999999997);
  b.on_response(2.5, false);
  EXPECT_EQ(b.measured, 2.00192);
  EXPECT_EQ(b.fill, 1.5511087499587597);
  EXPECT_EQ(b.capacity, 1.4067199999999997);
}

TEST(AdaptiveRate, WaitersSleepThenAskAgain) {
  d::BotocoreRateLimiter b;
  b.on_response(0.2, false);
  b.on_response(0.6, true);  // capacity 0.4 at rate 2.24 (above)
  // botocore's waiter sleeps (1 − 0.4)/2.24 (its _sleep_amount: 0.26785714285714285), taking
  // nothing; a second caller at the same instant gets the same answer.
  const double w = b.acquire(0.6);
  EXPECT_EQ(w, 0.26785714285714285);
  EXPECT_EQ(b.acquire(0.6), w);
  EXPECT_DOUBLE_EQ(b.capacity, 0.4);
  // At 0.6 + w one token has accrued: the first to ask takes it, the next waits 1/2.24 s.
  EXPECT_EQ(b.acquire(0.6 + w), 0.0);
  EXPECT_NEAR(b.capacity, 0.0, 1e-12);
  EXPECT_NEAR(b.acquire(0.6 + w), 1.0 / 2.24, 1e-12);
  // A throttling error meanwhile cuts the rate: the waiter that wakes finds less than a token and
  // waits again, at the new rate.
  b.on_response(1.0, true);
  EXPECT_LT(b.fill, 2.24);
  EXPECT_GT(b.acquire(0.6 + w + 1.0 / 2.24), 0.0);
}

TEST(AdaptiveRate, ExactBurstEveryAttemptThrottled) {
  // 3 clients at t = 0, one second per attempt-duration, every attempt fails with a throttling
  // error after 1 s, retried at once (strategy none), at most 2 attempts. The limiter is off for
  // the first attempts. At t = 1 the three errors arrive: the first turns it on (bucket 1.0 past 0:
  // count 1 over 1 s, measured 0.8; rate 0.7·0.8 = 0.56, capacity min(1, 0 + 1·1) = 1), the next two
  // cut the rate to 0.7·min(0.8, rate), floored at 0.5. Then the three retries ask: the first takes
  // the token (capacity 0), the other two wait (1 − 0)/0.5 = 2 s. At t = 2 the first retry's error
  // keeps the rate at 0.5. At t = 3 the second takes the token (capacity 0.5·2 = 1), the third
  // waits 2 s more and takes the next at t = 5. Attempts 6, all lost, 2 delayed for 2 + 4 = 6 s; the
  // run ends at 6 when the last retry fails. The rate was 1 on [0, 1) and 0.5 after: time-average
  // (1 + 0.5·5)/6; in force 5 of the 6 s.
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::none, 1.0, 10.0, 0.0};
  s.traffic.clients = 3;
  s.failures.failure_prob = 1.0;
  s.failures.failure_kind = FailureKind::throttled;
  s.client.max_attempts = 2;
  s.client.attempt_ms = 1000.0;
  const mc::RunResult off = simulate(s);
  EXPECT_EQ(off.attempts, 6);
  EXPECT_EQ(off.stop_time, 2.0);
  s.client.adaptive_rate = true;
  const mc::RunResult r = simulate(s);
  EXPECT_EQ(r.attempts, 6);
  EXPECT_EQ(r.lost, 3);
  EXPECT_EQ(r.metric("adaptive_delayed"), 2);
  EXPECT_DOUBLE_EQ(r.metric("adaptive_delay"), 6.0);
  EXPECT_DOUBLE_EQ(r.stop_time, 6.0);
  EXPECT_DOUBLE_EQ(r.metric("adaptive_rate"), 3.5 / 6.0);
  EXPECT_DOUBLE_EQ(r.metric("adaptive_on"), 5.0 / 6.0);
}

TEST(AdaptiveRate, WithoutThrottlingNothingChanges) {
  // Retryable failures only: the limiter never turns on (botocore's _enabled), so every draw and
  // every number is the run's without it (with the same streams: the run's key otherwise hashes the
  // scenario, this field included); only its own metrics are added.
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 10.0, 0.0};
  s.traffic.rate = 0.8;
  s.measurement.horizon = 300.0;
  s.admission.limit = 1;
  s.failures.failure_prob = 0.2;
  s.client.max_attempts = 4;
  s.client.attempt_ms = 10.0;
  const mc::RunResult a = same_streams(s, 7);
  s.client.adaptive_rate = true;
  const mc::RunResult b = same_streams(s, 7);
  EXPECT_GT(a.metric("rejected"), 0);  // contention: rejections (retryable) and failures
  EXPECT_EQ(a.attempts, b.attempts);
  EXPECT_EQ(a.lost, b.lost);
  EXPECT_EQ(a.successes, b.successes);
  EXPECT_TRUE(same_bits(a.latency, b.latency));
  EXPECT_TRUE(same_bits(a.stop_time, b.stop_time));
  EXPECT_EQ(b.metric("adaptive_delayed"), 0);
  EXPECT_EQ(b.metric("adaptive_on"), 0.0);
  EXPECT_GT(b.metric("adaptive_rate"), 0.0);
}

TEST(AdaptiveRate, CapsAmplificationUnderOverloadWhenRejectionsAreThrottled) {
  // Twice the capacity offered to a one-slot server (10 ms an attempt: 100 attempts/s) that rejects
  // the excess as throttled (429), clients retrying up to 3 attempts. Without the limiter 2.52
  // attempts per request (5.06 per attempt-duration, 12,696 rejected); with it every rejection cuts
  // the bucket's rate, so 0.63 attempts per attempt-duration are sent (below the server's capacity,
  // 4 rejected) while the requests wait for tokens (0.32 attempts per request that arrived; the run
  // collapses at 3,000 waiting, as botocore's calls stall on their threads: docs/reality.md).
  mc::Scenario s;
  s.model = Model::none;
  s.backoff = {Strategy::full, 1.0, 10.0, 0.0};
  s.traffic.rate = 2.0;
  s.measurement.horizon = 3000.0;
  s.admission.limit = 1;
  s.admission.reject_kind = FailureKind::throttled;
  s.client.max_attempts = 3;
  s.client.attempt_ms = 10.0;
  const mc::RunResult free = simulate(s);
  s.client.adaptive_rate = true;
  const mc::RunResult capped = simulate(s);
  const double a_free = static_cast<double>(free.attempts) / static_cast<double>(free.clients_arrived);
  const double a_capped = static_cast<double>(capped.attempts) / static_cast<double>(capped.clients_arrived);
  EXPECT_GT(a_free, 2.0);
  EXPECT_LT(a_capped, 1.0);
  EXPECT_LT(capped.attempt_rate, free.attempt_rate / 2);
  EXPECT_LT(capped.attempt_rate, 1.0);  // below the server's capacity
  EXPECT_LT(capped.metric("rejected") * 100, free.metric("rejected"));
  EXPECT_GT(capped.metric("adaptive_delayed"), 0);
  EXPECT_GT(capped.metric("adaptive_on"), 0.9);
}

TEST(AdaptiveRate, FieldsThatCannotApplyAreRefused) {
  mc::Scenario s;
  s.traffic.clients = 4;
  s.client.adaptive_rate = true;
  EXPECT_EQ(refused_field(s), "attempt_ms");  // botocore's clock is in seconds
  s.client.attempt_ms = 10.0;
  EXPECT_EQ(refused_field(s), "(accepted)");
  s.client.breaker.preset = 1;
  EXPECT_EQ(refused_field(s), "adaptive_rate");
  s.client.breaker.preset = 0;
  s.client.hedge.attempts = 2;
  s.client.hedge.delay = 1.0;
  EXPECT_EQ(refused_field(s), "adaptive_rate");
  s.client.hedge.attempts = 1;
  s.client.hedge.delay = 0.0;
  for (int b = 0; b < static_cast<int>(std::size(mc::budget_preset_names)); ++b) {
    s.client.budget.preset = b;
    if (mc::budget_preset_names[b] == "sre-adaptive") {
      EXPECT_EQ(refused_field(s), "adaptive_rate");
    }
  }
}
