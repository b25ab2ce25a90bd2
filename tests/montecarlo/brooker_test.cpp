// Brooker's classic OCC test (montecarlo/brooker.hpp): input checks, canonical form, exact lockstep
// cases derived by hand below, rapidcheck invariants over random scenarios, determinism across
// threads, and statistical checks of the leg sampler (fixed seeds, false-alarm rates stated).
// Budget: about 2 s in a Release build (the properties run 100 small cases each).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "analytic/error.hpp"
#include "montecarlo/brooker.hpp"

namespace mc = retrylab::montecarlo;
using retrylab::InputError;
using retrylab::Strategy;

namespace {

mc::BrookerScenario scenario(Strategy st, std::int64_t clients, double leg_sd) {
  mc::BrookerScenario s;
  s.backoff.strategy = st;
  s.clients = clients;
  s.leg_sd = leg_sd;
  return s;
}

std::string field_of(const mc::BrookerScenario& s) {
  try {
    mc::check_brooker(s);
  } catch (const InputError& e) {
    return e.field();
  }
  return "(accepted)";
}

bool same(const mc::BrookerResult& a, const mc::BrookerResult& b) {
  // Bitwise for the doubles: determinism means the same bytes, not nearly equal values.
  return a.attempts == b.attempts && a.reads == b.reads && a.calls == b.calls && a.successes == b.successes &&
         a.max_attempts == b.max_attempts &&
         std::bit_cast<std::uint64_t>(a.makespan) == std::bit_cast<std::uint64_t>(b.makespan) &&
         std::bit_cast<std::uint64_t>(a.latency) == std::bit_cast<std::uint64_t>(b.latency);
}

}  // namespace

// ---- input checks: every bad field throws InputError naming it --------------------------------

TEST(Brooker, InvalidInputNamesTheField) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto with = [](auto f) {
    mc::BrookerScenario s;
    f(s);
    return field_of(s);
  };
  EXPECT_EQ(with([](auto&) {}), "(accepted)");
  EXPECT_EQ(with([](auto& s) { s.clients = 0; }), "clients");
  EXPECT_EQ(with([](auto& s) { s.clients = mc::brooker_max_clients + 1; }), "clients");
  EXPECT_EQ(with([](auto& s) { s.backoff.base = 0.0; }), "base");
  EXPECT_EQ(with([&](auto& s) { s.backoff.base = nan; }), "base");
  EXPECT_EQ(with([](auto& s) { s.backoff.cap = 1.0; }), "cap");   // below base 5
  EXPECT_EQ(with([&](auto& s) { s.backoff.cap = inf; }), "cap");  // times in ms must stay finite
  EXPECT_EQ(with([](auto& s) { s.leg_mean = -1.0; }), "leg_mean");
  EXPECT_EQ(with([&](auto& s) { s.leg_mean = nan; }), "leg_mean");
  EXPECT_EQ(with([&](auto& s) { s.leg_mean = inf; }), "leg_mean");
  EXPECT_EQ(with([](auto& s) { s.leg_sd = -0.5; }), "leg_sd");
  EXPECT_EQ(with([&](auto& s) { s.leg_sd = nan; }), "leg_sd");
  EXPECT_EQ(with([](auto& s) {
              s.backoff.strategy = Strategy::window;
              s.backoff.window = 0.0;
            }),
            "window");
  EXPECT_EQ(with([](auto& s) { s.leg_sd = 0.0; }), "(accepted)");
  EXPECT_EQ(with([](auto& s) { s.leg_mean = 0.0; }), "(accepted)");

  mc::BrookerScenario ok;
  try {
    mc::simulate_brooker(ok, mc::RunPlan{0, 1, 1});
    ADD_FAILURE() << "runs = 0 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "runs");
  }
  mc::BrookerScenario bad;
  bad.clients = -3;
  EXPECT_THROW(mc::simulate_brooker_run(bad, 1, 0), InputError);
  EXPECT_THROW(mc::draw_brooker_legs(10.0, -1.0, 5, 1), InputError);
  EXPECT_THROW(mc::draw_brooker_legs(10.0, 2.0, -1, 1), InputError);
}

// ---- canonical description (the contract written in brooker.hpp) --------------------------------

TEST(Brooker, CanonicalNamesEveryFieldAndTheUnit) {
  mc::BrookerScenario s;
  EXPECT_EQ(mc::canonical(s),
            "model=brooker strategy=full base=5 cap=2000 window=0 clients=100 leg_mean=10 leg_sd=2 unit=ms");
  EXPECT_EQ(mc::stable_hash(s), mc::fnv1a64(mc::canonical(s)));
  // A stray window does not change a scenario that does not use it (nor its random numbers).
  mc::BrookerScenario t = s;
  t.backoff.window = 7.0;
  EXPECT_EQ(mc::canonical(t), mc::canonical(s));
  t.backoff.strategy = Strategy::window;
  EXPECT_NE(mc::canonical(t).find("strategy=window base=5 cap=2000 window=7 "), std::string::npos);
  t = s;
  t.leg_sd = 0.0;
  EXPECT_NE(mc::canonical(t), mc::canonical(s));
}

// ---- exact cases ---------------------------------------------------------------------------------
// Fixed legs (leg_sd = 0, every leg m ms) and a deterministic sleep (none, nojitter): the clients
// still waiting stay in lockstep. In round j (j = 1…N) all N − j + 1 of them read at the same
// instant (same version) and their writes reach the server together: exactly one, the first
// processed, succeeds; the rest fail and sleep the same w_j. A round lasts 4m plus the sleep before
// it, so the j-th success's reply arrives at 4m·j + Σ_{k<j} w_k. Hence attempts = N(N+1)/2 and
// makespan = 4mN + Σ_{k=1}^{N−1} w_k with w_k = 0 (none) or min(c, b·2^k) (nojitter). Every value
// here is an integer below 2^53, so the sums are exact in double.

namespace {
double lockstep_reply(Strategy st, const mc::BrookerScenario& s, std::int64_t j) {
  double t = 4.0 * s.leg_mean * static_cast<double>(j);
  if (st == Strategy::nojitter)
    for (std::int64_t k = 1; k < j; ++k)
      t += std::min(s.backoff.cap, s.backoff.base * std::exp2(static_cast<double>(k)));
  return t;
}
}  // namespace

TEST(Brooker, FixedLegsLockstepIsExact) {
  for (Strategy st : {Strategy::none, Strategy::nojitter}) {
    for (std::int64_t n : {1, 2, 3, 10, 100}) {
      const mc::BrookerScenario s = scenario(st, n, 0.0);
      const auto results = mc::simulate_brooker(s, mc::RunPlan{3, 7, 1});
      double latency = 0.0;
      for (std::int64_t j = 1; j <= n; ++j) latency += lockstep_reply(st, s, j);
      latency /= static_cast<double>(n);
      for (const auto& r : results) {
        EXPECT_EQ(r.attempts, n * (n + 1) / 2) << to_string(st) << " N=" << n;
        EXPECT_EQ(r.reads, r.attempts);
        EXPECT_EQ(r.calls, 2 * r.attempts);
        EXPECT_EQ(r.successes, n);
        EXPECT_EQ(r.max_attempts, n);
        EXPECT_EQ(r.makespan, lockstep_reply(st, s, n)) << to_string(st) << " N=" << n;
        EXPECT_DOUBLE_EQ(r.latency, latency) << to_string(st) << " N=" << n;  // a mean: division rounds
      }
    }
  }
  // The 100-client values the test above checks, written out (none: 4·10·100; nojitter: 4000 +
  // (10+20+…+1280) + 91·2000 = 4000 + 2550 + 182000).
  EXPECT_EQ(lockstep_reply(Strategy::none, scenario(Strategy::none, 100, 0.0), 100), 4000.0);
  EXPECT_EQ(lockstep_reply(Strategy::nojitter, scenario(Strategy::nojitter, 100, 0.0), 100), 188550.0);
}

// Zero legs and no sleep: every instant is t = 0, and a client's write keeps its read's tie word
// (brooker.hpp: nothing is ordered between cause and effect), so each read–write pair is atomic:
// no write ever finds the version changed. Every client succeeds at its first attempt, at t = 0.
TEST(Brooker, ZeroLegsMakeAttemptsAtomic) {
  for (Strategy st : {Strategy::none, Strategy::full}) {
    mc::BrookerScenario s = scenario(st, 50, 0.0);
    s.leg_mean = 0.0;
    for (const auto& r : mc::simulate_brooker(s, mc::RunPlan{3, 1, 1})) {
      EXPECT_EQ(r.attempts, 50);
      EXPECT_EQ(r.max_attempts, 1);
      EXPECT_EQ(r.makespan, 0.0);
    }
  }
}

TEST(Brooker, OneClientIsOneAttemptOfFourLegs) {
  for (Strategy st : {Strategy::none, Strategy::nojitter, Strategy::full, Strategy::equal, Strategy::decorrelated}) {
    const auto fixed = mc::simulate_brooker(scenario(st, 1, 0.0), mc::RunPlan{4, 3, 1});
    for (const auto& r : fixed) {
      EXPECT_EQ(r.attempts, 1);
      EXPECT_EQ(r.reads, 1);
      EXPECT_EQ(r.calls, 2);
      EXPECT_EQ(r.makespan, 40.0);  // 4 legs of exactly 10 ms
      EXPECT_EQ(r.latency, 40.0);
    }
    const auto random = mc::simulate_brooker(scenario(st, 1, 2.0), mc::RunPlan{4, 3, 1});
    for (const auto& r : random) {
      EXPECT_EQ(r.attempts, 1);
      EXPECT_EQ(r.makespan, r.latency);
      EXPECT_GT(r.makespan, 0.0);
      EXPECT_NE(r.makespan, 40.0);  // the legs are random (probability of exactly 40: zero)
    }
  }
}

// Two clients, fixed 10 ms legs: both read at 10 and write at 30; one wins, the other learns it at
// 40, sleeps once (its first sleep, k = 1) and succeeds alone: makespan = 80 + sleep. Brooker's
// first window is w_1 = min(c, b·2^1) = 2b = 10 ms (b = 5), so the sleep is exactly 10 (nojitter),
// U(0, 10) (full), 5 + U(0, 5) (equal), U(b, 3b) = U(5, 15) (decorrelated). Checked: the support
// exactly over 400 runs, and the mean by a two-sided z check at α = 1e-4 each (z = 3.8906, sd of a
// uniform of width w is w/√12): false-alarm rate 3e-4 for the three jittered strategies.
TEST(Brooker, FirstSleepIsBrookersExpoOne) {
  struct Case {
    Strategy st;
    double lo, hi;  // support of the sleep (ms)
  };
  const std::int64_t runs = 400;
  for (const Case c : {Case{Strategy::nojitter, 10, 10}, Case{Strategy::full, 0, 10}, Case{Strategy::equal, 5, 10},
                       Case{Strategy::decorrelated, 5, 15}}) {
    const auto results = mc::simulate_brooker(scenario(c.st, 2, 0.0), mc::RunPlan{runs, 17, 2});
    retrylab::MeanAccumulator sleep;
    for (const auto& r : results) {
      EXPECT_EQ(r.attempts, 3);
      EXPECT_GE(r.makespan - 80.0, c.lo) << to_string(c.st);
      EXPECT_LE(r.makespan - 80.0, c.hi) << to_string(c.st);
      sleep.add(r.makespan - 80.0);
    }
    const double width = c.hi - c.lo;
    EXPECT_NEAR(sleep.mean(), 0.5 * (c.lo + c.hi), 3.8906 * width / std::sqrt(12.0 * static_cast<double>(runs)))
        << to_string(c.st);
  }
}

// With one client the makespan is the sum of four independent |N(10, 2)| legs: mean 4·E|X| where
// E|X| = μ(1 − 2Φ(−μ/σ)) + 2σφ(μ/σ) (folded normal) = 10 + O(1e-6) here, variance 4·(σ² + μ² − E|X|²)
// ≈ 16. 4000 runs, seed fixed; a two-sided z check at α = 1e-4 (z = 3.8906): false-alarm rate 1e-4.
TEST(Brooker, OneClientMakespanIsFourLegsInMean) {
  const double mu = 10.0, sigma = 2.0;
  const double phi = std::exp(-0.5 * 25.0) / std::sqrt(2.0 * std::numbers::pi);
  const double tail = 0.5 * std::erfc(5.0 / std::numbers::sqrt2);
  const double e_abs = mu * (1.0 - 2.0 * tail) + 2.0 * sigma * phi;
  const double var = 4.0 * (sigma * sigma + mu * mu - e_abs * e_abs);
  const std::int64_t runs = 4000;
  const auto sum =
      mc::summarize_brooker(mc::simulate_brooker(scenario(Strategy::full, 1, 2.0), mc::RunPlan{runs, 11, 2}));
  EXPECT_EQ(sum.runs, runs);
  EXPECT_NEAR(sum.makespan.mean, 4.0 * e_abs, 3.8906 * std::sqrt(var / static_cast<double>(runs)));
}

// ---- the leg sampler ---------------------------------------------------------------------------
// Folded normal CDF F(x) = Φ((x−μ)/σ) − Φ((−x−μ)/σ), x >= 0. One-sample KS with n = 20,000 at
// α = 1e-3 (asymptotic critical value √n·D = 1.9495): false-alarm rate 1e-3 per sample, two samples.
namespace {
double ks_folded(const std::vector<double>& xs, double mu, double sigma) {
  std::vector<double> v = xs;
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
}  // namespace

TEST(BrookerLegs, FoldedNormalKs) {
  const std::int64_t n = 20000;
  for (auto [mu, sigma] : {std::pair{10.0, 2.0}, std::pair{0.0, 1.0}}) {
    const auto legs = mc::draw_brooker_legs(mu, sigma, n, 5);
    for (double x : legs) ASSERT_GE(x, 0.0);
    EXPECT_LT(std::sqrt(static_cast<double>(n)) * ks_folded(legs, mu, sigma), 1.9495) << "mu=" << mu;
  }
}

// The ziggurat's rare branches: the tail beyond R = 3.442619855899 has probability
// p = 2Φ(−R) = 5.7628e-4 (erfc). With n = 400,000 half-normal legs the count beyond R is
// Binomial(n, p): mean 230.5, sd 15.2; a two-sided z check at α = 1e-4 (z = 3.8906). The second
// moment E[x²] = σ² = 1 checks the wedges' mass too: sd of the mean of x² is √(2/n); same α.
TEST(BrookerLegs, ZigguratTailAndSecondMoment) {
  const std::int64_t n = 400000;
  const auto legs = mc::draw_brooker_legs(0.0, 1.0, n, 9);
  const double r = 3.442619855899;
  const double p = std::erfc(r / std::numbers::sqrt2);
  std::int64_t beyond = 0;
  double m2 = 0.0;
  for (double x : legs) {
    beyond += x > r;
    m2 += x * x;
  }
  m2 /= static_cast<double>(n);
  const double nn = static_cast<double>(n);
  EXPECT_NEAR(static_cast<double>(beyond), nn * p, 3.8906 * std::sqrt(nn * p * (1 - p)));
  EXPECT_NEAR(m2, 1.0, 3.8906 * std::sqrt(2.0 / nn));
  const auto fixed = mc::draw_brooker_legs(10.0, 0.0, 3, 1);
  EXPECT_EQ(fixed, (std::vector<double>{10.0, 10.0, 10.0}));
}

// ---- determinism ---------------------------------------------------------------------------------

TEST(Brooker, SameBytesForAnyThreadCount) {
  for (double sd : {2.0, 0.0}) {
    const mc::BrookerScenario s = scenario(Strategy::decorrelated, 40, sd);
    const auto one = mc::simulate_brooker(s, mc::RunPlan{24, 42, 1});
    const auto two = mc::simulate_brooker(s, mc::RunPlan{24, 42, 2});
    const auto five = mc::simulate_brooker(s, mc::RunPlan{24, 42, 5});
    ASSERT_EQ(one.size(), 24u);
    for (std::size_t i = 0; i < one.size(); ++i) {
      EXPECT_TRUE(same(one[i], two[i])) << i;
      EXPECT_TRUE(same(one[i], five[i])) << i;
      EXPECT_TRUE(same(one[i], mc::simulate_brooker_run(s, 42, i))) << i;
    }
    // More runs never change the earlier ones.
    const auto more = mc::simulate_brooker(s, mc::RunPlan{30, 42, 2});
    for (std::size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(same(one[i], more[i])) << i;
    // Another seed is another experiment.
    EXPECT_FALSE(same(one[0], mc::simulate_brooker_run(s, 43, 0)));
  }
}

TEST(Brooker, SummaryReducesInRunIndexOrder) {
  const auto results = mc::simulate_brooker(scenario(Strategy::equal, 20, 2.0), mc::RunPlan{9, 4, 2});
  const auto s = mc::summarize_brooker(results);
  EXPECT_EQ(s.runs, 9);
  retrylab::MeanAccumulator a, m;
  for (const auto& r : results) {
    a.add(static_cast<double>(r.attempts));
    m.add(r.makespan);
  }
  EXPECT_EQ(s.attempts.mean, a.mean());
  EXPECT_EQ(s.makespan.mean, m.mean());
  EXPECT_EQ(s.attempts.n, 9);
  EXPECT_DOUBLE_EQ(s.attempts_per_client.mean, a.mean() / 20.0);  // Welford on x/20: rounding may differ
  EXPECT_EQ(s.calls.mean, 2.0 * a.mean());
}

// ---- properties over random scenarios -------------------------------------------------------------
// For any scenario: every client succeeds once; N <= attempts <= N² and max_attempts <= N (a client
// fails only when another client's success falls between its read and its write, and its attempts'
// windows are disjoint, so it fails at most N − 1 times); reads = attempts; latency <= makespan.
// With fixed legs (leg_sd = 0) successes are at least 2m apart at the server (a successful write's
// read came after the previous success), the first write reaches it at >= 3m, and its reply takes m:
// makespan >= 2m(N + 1) (= 4m at N = 1) and latency >= 4m.
namespace {
rc::Gen<mc::BrookerScenario> gen_scenario() {
  return rc::gen::exec([] {
    mc::BrookerScenario s;
    s.backoff.strategy = *rc::gen::element(Strategy::none, Strategy::nojitter, Strategy::full, Strategy::equal,
                                           Strategy::decorrelated, Strategy::window);
    s.backoff.base = *rc::gen::element(0.5, 1.0, 5.0, 20.0);
    s.backoff.cap = s.backoff.base * *rc::gen::element(1.0, 4.0, 400.0);
    s.backoff.window = *rc::gen::element(1.0, 30.0, 500.0);
    s.clients = *rc::gen::inRange<std::int64_t>(1, 41);
    s.leg_mean = *rc::gen::element(0.0, 0.5, 10.0, 25.0);
    s.leg_sd = *rc::gen::element(0.0, 0.0, 2.0, 8.0);
    return s;
  });
}
}  // namespace

RC_GTEST_PROP(BrookerProperty, EveryClientSucceedsWithinBounds, ()) {
  const mc::BrookerScenario s = *gen_scenario();
  const auto seed = *rc::gen::inRange<std::uint64_t>(0, 1000);
  const auto run = *rc::gen::inRange<std::uint64_t>(0, 100);
  const mc::BrookerResult r = mc::simulate_brooker_run(s, seed, run);
  const std::int64_t n = s.clients;
  RC_ASSERT(r.successes == n);
  RC_ASSERT(r.attempts >= n);
  RC_ASSERT(r.attempts <= n * n);
  RC_ASSERT(r.max_attempts >= 1);
  RC_ASSERT(r.max_attempts <= n);
  RC_ASSERT(r.reads == r.attempts);
  RC_ASSERT(r.calls == r.reads + r.attempts);
  RC_ASSERT(std::isfinite(r.makespan));
  RC_ASSERT(r.latency <= r.makespan);
  RC_ASSERT(r.latency >= 0.0);
  if (s.leg_sd == 0.0) {
    const double m = s.leg_mean;
    RC_ASSERT(r.makespan >= 2.0 * m * static_cast<double>(n + 1));
    RC_ASSERT(r.latency >= 4.0 * m);
  }
}

// Deterministic sleeps and fixed legs (m > 0) keep the clients in lockstep for any N, base, cap and leg.
RC_GTEST_PROP(BrookerProperty, LockstepAttemptsAreTriangular, ()) {
  mc::BrookerScenario s = *gen_scenario();
  s.backoff.strategy = *rc::gen::element(Strategy::none, Strategy::nojitter);
  s.leg_sd = 0.0;
  // Zero legs put a write at the instant of other clients' reads, whose order is then random: no lockstep.
  s.leg_mean = *rc::gen::element(0.5, 10.0, 25.0);
  const mc::BrookerResult r = mc::simulate_brooker_run(s, *rc::gen::inRange<std::uint64_t>(0, 1000), 0);
  RC_ASSERT(r.attempts == s.clients * (s.clients + 1) / 2);
  RC_ASSERT(r.max_attempts == s.clients);
}
