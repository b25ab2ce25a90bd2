// Brooker's classic OCC test on the engine (montecarlo/brooker_preset.hpp): the mapping, exact
// lockstep cases derived by hand below, rapidcheck invariants over random tests, determinism across
// threads, and statistical checks of the legs (montecarlo/legs.hpp) with fixed seeds and their
// false-alarm rates stated. About 2 s in a Release build.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "analytic/error.hpp"
#include "analytic/stats.hpp"
#include "montecarlo/brooker_preset.hpp"
#include "montecarlo/legs.hpp"
#include "montecarlo/run_detail.hpp"
#include "montecarlo/simulate.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::InputError;
using retrylab::Strategy;

namespace {

mc::BrookerTest test(Strategy st, std::int64_t clients, double leg_sd) {
  mc::BrookerTest t;
  t.strategy = st;
  t.clients = clients;
  t.leg_sd = leg_sd;
  return t;
}

// Runs with the most attempts one client made (run_detail.hpp).
std::vector<mc::RunDetail> runs(const mc::BrookerTest& t, std::int64_t n, std::uint64_t seed, int threads = 1) {
  mc::DetailOptions o;
  o.most_attempts = true;
  return mc::simulate_detailed(mc::brooker_scenario(t), mc::RunPlan{n, seed, threads}, o);
}

bool same(const mc::RunDetail& a, const mc::RunDetail& b) {
  // Bitwise for the doubles: determinism means the same bytes, not nearly equal values.
  return a.result.attempts == b.result.attempts && a.result.successes == b.result.successes &&
         a.most_attempts == b.most_attempts &&
         std::bit_cast<std::uint64_t>(a.result.makespan) == std::bit_cast<std::uint64_t>(b.result.makespan) &&
         std::bit_cast<std::uint64_t>(a.result.latency) == std::bit_cast<std::uint64_t>(b.result.latency);
}

}  // namespace

// ---- the mapping (brooker_preset.hpp) ----------------------------------------------------------------

TEST(BrookerEngine, ScenarioIsFreeOnOneRowWithRoundTripService) {
  const mc::Scenario s = mc::brooker_scenario(mc::BrookerTest{});
  EXPECT_EQ(mc::canonical(s),
            "model=free strategy=full base=10 cap=2000 window=0 clients=100 rate=0 horizon=1000000000000 warmup=0 "
            "collapse=3000 retries=on service=round-trip delay=10 delay_dist=normal attempt_ms=1 delay_sd=2");
  // Brooker's windows min(c, b·2^k) are the engine's min(c, b_e·2^(k−1)) with b_e = 2b; decorrelated
  // jitter's base is its floor, the same in both; a cap below 2b makes every window the cap.
  EXPECT_EQ(mc::brooker_engine_base(Strategy::full, 5.0, 2000.0), 10.0);
  EXPECT_EQ(mc::brooker_engine_base(Strategy::equal, 5.0, 2000.0), 10.0);
  EXPECT_EQ(mc::brooker_engine_base(Strategy::decorrelated, 5.0, 2000.0), 5.0);
  EXPECT_EQ(mc::brooker_engine_base(Strategy::nojitter, 5.0, 7.0), 7.0);
  mc::BrookerTest zero;
  zero.leg_mean = 0.0;  // a round trip of zero legs: no service to check a write against
  EXPECT_THROW(mc::brooker_scenario(zero), InputError);
  EXPECT_EQ(mc::brooker_scenario(test(Strategy::full, 5000, 2.0)).measurement.collapse,
            5001);  // K never stops the burst
}

TEST(BrookerEngine, LegRulesNameTheirField) {
  auto field = [](mc::Scenario s) {
    try {
      mc::check_scenario(s);
    } catch (const InputError& e) {
      return e.field();
    }
    return std::string("(accepted)");
  };
  mc::Scenario s = mc::brooker_scenario(mc::BrookerTest{});
  EXPECT_EQ(field(s), "(accepted)");
  s.resource.delay_dist = mc::DelayDist::exponential;  // delay_sd only with normal legs
  EXPECT_EQ(field(s), "delay_sd");
  s.resource.delay_sd = 0.0;
  EXPECT_EQ(field(s), "(accepted)");
  s.resource.delay_dist = mc::DelayDist::fixed;
  s.resource.delay = 0.0;  // a round trip of no legs
  EXPECT_EQ(field(s), "service");
  s.resource.delay_dist = mc::DelayDist::normal;
  EXPECT_EQ(field(s), "delay_dist");  // normal legs need a delay too
  s = mc::brooker_scenario(mc::BrookerTest{});
  s.resource.delay_sd = -1.0;
  EXPECT_EQ(field(s), "delay_sd");
}

// ---- exact cases -----------------------------------------------------------------------------------
// Fixed legs (leg_sd = 0, every leg m ms) and a deterministic sleep (none, nojitter): the clients
// still waiting stay in lockstep. In round j (j = 1…N) all N − j + 1 of them reach the server (read)
// at the same instant and their services end together: exactly one commits (a uniform winner of the
// simultaneous ends), the rest fail and sleep the same w_j. A round lasts 4m plus the sleep before
// it, so the j-th success's reply arrives at 4m·j + Σ_{k<j} w_k. Hence attempts = N(N+1)/2 and
// makespan = 4mN + Σ_{k=1}^{N−1} w_k with w_k = 0 (none) or min(c, b·2^k) (nojitter, Brooker's b).
// Every value here is an integer below 2^53, so the sums are exact in double.

namespace {
double lockstep_reply(Strategy st, const mc::BrookerTest& t, std::int64_t j) {
  double r = 4.0 * t.leg_mean * static_cast<double>(j);
  if (st == Strategy::nojitter)
    for (std::int64_t k = 1; k < j; ++k) r += std::min(t.cap, t.base * std::exp2(static_cast<double>(k)));
  return r;
}
}  // namespace

TEST(BrookerEngine, FixedLegsLockstepIsExact) {
  for (Strategy st : {Strategy::none, Strategy::nojitter}) {
    for (std::int64_t n : {1, 2, 3, 10, 100}) {
      const mc::BrookerTest t = test(st, n, 0.0);
      double latency = 0.0;
      for (std::int64_t j = 1; j <= n; ++j) latency += lockstep_reply(st, t, j);
      latency /= static_cast<double>(n);
      for (const auto& d : runs(t, 3, 7)) {
        EXPECT_EQ(d.result.attempts, n * (n + 1) / 2) << to_string(st) << " N=" << n;
        EXPECT_EQ(d.result.successes, n);
        EXPECT_EQ(d.most_attempts, n);
        EXPECT_EQ(d.result.makespan, lockstep_reply(st, t, n)) << to_string(st) << " N=" << n;
        EXPECT_DOUBLE_EQ(d.result.latency, latency) << to_string(st) << " N=" << n;  // a mean: division rounds
      }
    }
  }
  // The 100-client values the test above checks, written out (none: 4·10·100; nojitter: 4000 +
  // (10+20+…+1280) + 91·2000 = 4000 + 2550 + 182000).
  EXPECT_EQ(lockstep_reply(Strategy::none, test(Strategy::none, 100, 0.0), 100), 4000.0);
  EXPECT_EQ(lockstep_reply(Strategy::nojitter, test(Strategy::nojitter, 100, 0.0), 100), 188550.0);
}

TEST(BrookerEngine, OneClientIsOneAttemptOfFourLegs) {
  for (Strategy st : {Strategy::none, Strategy::nojitter, Strategy::full, Strategy::equal, Strategy::decorrelated}) {
    for (const auto& d : runs(test(st, 1, 0.0), 4, 3)) {
      EXPECT_EQ(d.result.attempts, 1);
      EXPECT_EQ(d.result.makespan, 40.0);  // 4 legs of exactly 10 ms
      EXPECT_EQ(d.result.latency, 40.0);
    }
    for (const auto& d : runs(test(st, 1, 2.0), 4, 3)) {
      EXPECT_EQ(d.result.attempts, 1);
      EXPECT_EQ(d.result.makespan, d.result.latency);
      EXPECT_GT(d.result.makespan, 0.0);
      EXPECT_NE(d.result.makespan, 40.0);  // the legs are random (probability of exactly 40: zero)
    }
  }
}

// Two clients, fixed 10 ms legs: both read at 10 and write at 30; one wins, the other learns it at
// 40, sleeps once (its first sleep) and succeeds alone: makespan = 80 + sleep. Brooker's first window
// is min(c, b·2^1) = 2b = 10 ms (b = 5), so the sleep is exactly 10 (nojitter), U(0, 10) (full),
// 5 + U(0, 5) (equal), U(b, 3b) = U(5, 15) (decorrelated). Checked: the support exactly over 400
// runs, and the mean by a two-sided z check at α = 1e-4 each (z = 3.8906, sd of a uniform of width w
// is w/√12): false-alarm rate 3e-4 for the three jittered strategies.
TEST(BrookerEngine, FirstSleepIsBrookersExpoOne) {
  struct Case {
    Strategy st;
    double lo, hi;  // support of the sleep (ms)
  };
  const std::int64_t n = 400;
  for (const Case c : {Case{Strategy::nojitter, 10, 10}, Case{Strategy::full, 0, 10}, Case{Strategy::equal, 5, 10},
                       Case{Strategy::decorrelated, 5, 15}}) {
    retrylab::MeanAccumulator sleep;
    for (const auto& d : runs(test(c.st, 2, 0.0), n, 17, 2)) {
      EXPECT_EQ(d.result.attempts, 3);
      EXPECT_GE(d.result.makespan - 80.0, c.lo) << to_string(c.st);
      EXPECT_LE(d.result.makespan - 80.0, c.hi) << to_string(c.st);
      sleep.add(d.result.makespan - 80.0);
    }
    const double width = c.hi - c.lo;
    EXPECT_NEAR(sleep.mean(), 0.5 * (c.lo + c.hi), 3.8906 * width / std::sqrt(12.0 * static_cast<double>(n)))
        << to_string(c.st);
  }
}

// With one client the makespan is the sum of four independent |N(10, 2)| legs: mean 4·E|X| where
// E|X| = μ(1 − 2Φ(−μ/σ)) + 2σφ(μ/σ) (folded normal) = 10 + O(1e-6) here, variance 4·(σ² + μ² − E|X|²)
// ≈ 16. 4000 runs, seed fixed; a two-sided z check at α = 1e-4 (z = 3.8906): false-alarm rate 1e-4.
TEST(BrookerEngine, OneClientMakespanIsFourLegsInMean) {
  const double mu = 10.0, sigma = 2.0;
  const double phi = std::exp(-0.5 * 25.0) / std::sqrt(2.0 * std::numbers::pi);
  const double tail = 0.5 * std::erfc(5.0 / std::numbers::sqrt2);
  const double e_abs = mu * (1.0 - 2.0 * tail) + 2.0 * sigma * phi;
  const double var = 4.0 * (sigma * sigma + mu * mu - e_abs * e_abs);
  const std::int64_t n = 4000;
  const auto sum = mc::summarize(mc::simulate(mc::brooker_scenario(test(Strategy::full, 1, 2.0)), {n, 11, 2}));
  EXPECT_NEAR(sum.makespan.mean, 4.0 * e_abs, 3.8906 * std::sqrt(var / static_cast<double>(n)));
}

// ---- the legs (montecarlo/legs.hpp) ------------------------------------------------------------------
// Folded normal CDF F(x) = Φ((x−μ)/σ) − Φ((−x−μ)/σ), x >= 0. One-sample KS with n = 20,000 at
// α = 1e-3 (asymptotic critical value √n·D = 1.9495): false-alarm rate 1e-3 per sample, two samples.
namespace {
double ks_folded(std::vector<double> v, double mu, double sigma) {
  std::sort(v.begin(), v.end());
  auto Phi = [](double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); };
  double d = 0.0;
  const double n = static_cast<double>(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double f = Phi((v[i] - mu) / sigma) - Phi((-v[i] - mu) / sigma);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  return d;
}

mc::Scenario normal_legs(double mu, double sigma) {
  mc::Scenario o;
  o.resource.delay = mu;  // 0 is refused by check_scenario, not by the sampler: the half-normal for the tests below
  o.resource.delay_dist = mc::DelayDist::normal;
  o.resource.delay_sd = sigma;
  return o;
}

std::vector<double> legs(const mc::Scenario& o, std::int64_t n, std::uint64_t seed) {
  mc::Stream rng(mc::run_key(seed, 77), mc::StreamId::delay, 0);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (auto& x : out) x = mc::draw_leg(o.resource, rng);
  return out;
}
}  // namespace

TEST(BrookerLegs, NormalLegsAreFoldedNormal) {
  const std::int64_t n = 20000;
  for (auto [mu, sigma] : {std::pair{10.0, 2.0}, std::pair{0.0, 1.0}}) {
    const auto xs = legs(normal_legs(mu, sigma), n, 5);
    for (double x : xs) ASSERT_GE(x, 0.0);
    EXPECT_LT(std::sqrt(static_cast<double>(n)) * ks_folded(xs, mu, sigma), 1.9495) << "mu=" << mu;
  }
  // A round trip is two legs drawn in turn from the same stream.
  const mc::Scenario o = normal_legs(10.0, 2.0);
  mc::Stream a(9, mc::StreamId::service, 0), b(9, mc::StreamId::service, 0);
  for (int k = 0; k < 100; ++k) {
    const double trip = mc::draw_round_trip(o.resource, a);
    const double first = mc::draw_leg(o.resource, b);
    EXPECT_EQ(trip, first + mc::draw_leg(o.resource, b));
  }
  // sd 0: every leg exactly the delay, no draw.
  mc::Stream none(1, mc::StreamId::delay, 0);
  EXPECT_EQ(mc::draw_leg(normal_legs(10.0, 0.0).resource, none), 10.0);
  EXPECT_EQ(mc::draw_round_trip(normal_legs(10.0, 0.0).resource, none), 20.0);
}

// The ziggurat's rare branches (montecarlo/normal.hpp): the tail beyond R = 3.442619855899 has
// probability p = 2Φ(−R) = 5.7628e-4 (erfc). With n = 400,000 half-normal legs the count beyond R is
// Binomial(n, p): mean 230.5, sd 15.2; a two-sided z check at α = 1e-4 (z = 3.8906). The second
// moment E[x²] = σ² = 1 checks the wedges' mass too: sd of the mean of x² is √(2/n); same α.
TEST(BrookerLegs, ZigguratTailAndSecondMoment) {
  const std::int64_t n = 400000;
  const auto xs = legs(normal_legs(0.0, 1.0), n, 9);
  const double r = 3.442619855899;
  const double p = std::erfc(r / std::numbers::sqrt2);
  std::int64_t beyond = 0;
  double m2 = 0.0;
  for (double x : xs) {
    beyond += x > r;
    m2 += x * x;
  }
  m2 /= static_cast<double>(n);
  const double nn = static_cast<double>(n);
  EXPECT_NEAR(static_cast<double>(beyond), nn * p, 3.8906 * std::sqrt(nn * p * (1 - p)));
  EXPECT_NEAR(m2, 1.0, 3.8906 * std::sqrt(2.0 / nn));
}

// ---- determinism -----------------------------------------------------------------------------------

TEST(BrookerEngine, SameBytesForAnyThreadCount) {
  for (double sd : {2.0, 0.0}) {
    const mc::BrookerTest t = test(Strategy::decorrelated, 40, sd);
    const auto one = runs(t, 24, 42, 1), two = runs(t, 24, 42, 2), five = runs(t, 24, 42, 5);
    ASSERT_EQ(one.size(), 24u);
    for (std::size_t i = 0; i < one.size(); ++i) {
      EXPECT_TRUE(same(one[i], two[i])) << i;
      EXPECT_TRUE(same(one[i], five[i])) << i;
      const mc::RunResult r = mc::simulate_run(mc::brooker_scenario(t), 42, i);  // the observer changes nothing
      EXPECT_EQ(r.attempts, one[i].result.attempts);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(r.makespan), std::bit_cast<std::uint64_t>(one[i].result.makespan));
    }
    EXPECT_FALSE(same(one[0], runs(t, 1, 43)[0]));  // another seed is another experiment
  }
}

// ---- properties over random tests --------------------------------------------------------------------
// For any test: every client succeeds once; N <= attempts <= N(N+1)/2 and most attempts <= N (a client
// fails only when a commit of a client that succeeded before it falls inside its service, and its
// services are disjoint, so the k-th to succeed fails at most k − 1 times); latency <= makespan.
// With fixed legs successes are at least 2m apart at the server (a successful attempt's service
// started after the previous commit), the first commit is at >= 3m, and its reply takes m:
// makespan >= 2m(N + 1) and latency >= 4m.
namespace {
rc::Gen<mc::BrookerTest> gen_test() {
  return rc::gen::exec([] {
    mc::BrookerTest t;
    t.strategy = *rc::gen::element(Strategy::none, Strategy::nojitter, Strategy::full, Strategy::equal,
                                   Strategy::decorrelated, Strategy::window);
    t.base = *rc::gen::element(0.5, 1.0, 5.0, 20.0);
    t.cap = t.base * *rc::gen::element(1.0, 4.0, 400.0);
    t.window = *rc::gen::element(1.0, 30.0, 500.0);
    t.clients = *rc::gen::inRange<std::int64_t>(1, 41);
    t.leg_mean = *rc::gen::element(0.5, 10.0, 25.0);
    t.leg_sd = *rc::gen::element(0.0, 0.0, 2.0, 8.0);
    return t;
  });
}

mc::RunDetail one_run(const mc::BrookerTest& t, std::uint64_t seed, std::uint64_t run) {
  mc::DetailOptions o;
  o.most_attempts = true;
  // Run `run` alone: a plan of run + 1 runs would repeat the earlier ones; run_detail keys by index.
  return mc::simulate_detailed(mc::brooker_scenario(t), mc::RunPlan{static_cast<std::int64_t>(run) + 1, seed, 1}, o)
      .back();
}
}  // namespace

RC_GTEST_PROP(BrookerEngineProperty, EveryClientSucceedsWithinBounds, ()) {
  const mc::BrookerTest t = *gen_test();
  const mc::RunDetail d = one_run(t, *rc::gen::inRange<std::uint64_t>(0, 1000), *rc::gen::inRange<std::uint64_t>(0, 3));
  const std::int64_t n = t.clients;
  RC_ASSERT(d.result.successes == n);
  RC_ASSERT(d.result.attempts >= n);
  RC_ASSERT(d.result.attempts <= n * (n + 1) / 2);
  RC_ASSERT(d.most_attempts >= 1);
  RC_ASSERT(d.most_attempts <= n);
  RC_ASSERT(std::isfinite(d.result.makespan));
  RC_ASSERT(d.result.latency <= d.result.makespan);
  if (t.leg_sd == 0.0) {
    const double m = t.leg_mean;
    RC_ASSERT(d.result.makespan >= 2.0 * m * static_cast<double>(n + 1));
    RC_ASSERT(d.result.latency >= 4.0 * m);
  }
}

// Deterministic sleeps and fixed legs keep the clients in lockstep for any N, base, cap and leg.
RC_GTEST_PROP(BrookerEngineProperty, LockstepAttemptsAreTriangular, ()) {
  mc::BrookerTest t = *gen_test();
  t.strategy = *rc::gen::element(Strategy::none, Strategy::nojitter);
  t.leg_sd = 0.0;
  const mc::RunDetail d = one_run(t, *rc::gen::inRange<std::uint64_t>(0, 1000), 0);
  RC_ASSERT(d.result.attempts == t.clients * (t.clients + 1) / 2);
  RC_ASSERT(d.most_attempts == t.clients);
}
