// rapidcheck properties of the closed forms. Seeds: rapidcheck prints the seed of a
// failing case; replay with RC_PARAMS="seed=<seed>". Inputs are drawn from integer grids mapped onto
// the domains, so each property covers its whole stated range (including the ends).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>
#include <ostream>

#include "analytic/aloha.hpp"
#include "analytic/decorrelated.hpp"
#include "analytic/occ.hpp"
#include "analytic/ps.hpp"
#include "analytic/sleep.hpp"

namespace retrylab {

// How rapidcheck prints a Strategy in a counter-example (found by ADL: in Strategy's namespace, not
// this file's).
inline void showValue(Strategy s, std::ostream& os) { os << to_string(s); }

}  // namespace retrylab

namespace retrylab::properties_test {
namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

// A double in [lo, hi] on a grid of 10^6 steps (ends included).
rc::Gen<double> in_range(double lo, double hi) {
  return rc::gen::map(rc::gen::inRange(0, 1'000'001), [lo, hi](int i) { return lo + (hi - lo) * (i / 1e6); });
}

rc::Gen<Strategy> exact_strategy() {
  return rc::gen::element(Strategy::none, Strategy::nojitter, Strategy::full, Strategy::equal, Strategy::window);
}

// Inverse∘forward on each branch. Error budget: S = goodput(λ) carries ~2ε relative error, which the
// inverse amplifies by 1/|1 − 2λ|; Lambert W near its branch point −1/e loses accuracy like
// ε/(1 − 2λ)² (it works with sqrt(2(1 + e·z))). So |Δλ| <= 8ε·λ·(1 + 1/(1 − 2λ)²).
double inverse_tolerance(double rate) {
  const double d = 1.0 - 2.0 * rate;
  return 8.0 * eps * rate * (1.0 + 1.0 / (d * d));
}

RC_GTEST_PROP(AlohaProperty, InverseOfGoodputIsIdentityOnLowBranch, ()) {
  const double rate = *in_range(0.0, 0.499);
  const AlohaInverse inv = aloha_inverse(goodput(PureAloha{rate}));
  RC_ASSERT(std::abs(inv.low - rate) <= inverse_tolerance(rate) + 1e-300);
}

RC_GTEST_PROP(AlohaProperty, InverseOfGoodputIsIdentityOnHighBranch, ()) {
  const double rate = *in_range(0.501, 300.0);
  const AlohaInverse inv = aloha_inverse(goodput(PureAloha{rate}));
  RC_ASSERT(std::abs(inv.high - rate) <= inverse_tolerance(rate));
}

RC_GTEST_PROP(AlohaProperty, GoodputMonotoneOnEachSideAndBelowMax, ()) {
  const double a = *in_range(0.0, 0.5), b = *in_range(0.0, 0.5);
  const double lo = std::min(a, b), hi = std::max(a, b);
  RC_ASSERT(goodput(PureAloha{lo}) <= goodput(PureAloha{hi}));                        // aloha_increasing
  RC_ASSERT(goodput(PureAloha{0.5 + lo * 40}) >= goodput(PureAloha{0.5 + hi * 40}));  // aloha_decreasing
  RC_ASSERT(goodput(PureAloha{a * 100}) <= aloha_max_goodput());                      // aloha_max
  const AlohaInverse inv = aloha_inverse(*in_range(0.0, aloha_max_goodput()));
  RC_ASSERT(inv.low <= 0.5 && inv.high >= 0.5);
}

RC_GTEST_PROP(OccProperty, GoodputIncreasingAndBelowOne, ()) {
  const double a = *in_range(0.0, 1000.0), b = *in_range(0.0, 1000.0);
  const double lo = std::min(a, b), hi = std::max(a, b);
  RC_ASSERT(goodput(OccFree{lo}) <= goodput(OccFree{hi}));  // occ_increasing
  RC_ASSERT(goodput(OccFree{hi}) < 1.0);                    // occ_bounds
}

RC_GTEST_PROP(PsProperty, TimeAndNumberIncreaseWithLoadAndSatisfyLittle, ()) {
  const double a = *in_range(0.0, 0.999), b = *in_range(0.0, 0.999);
  const double lo = std::min(a, b), hi = std::max(a, b);
  RC_ASSERT(mean_time(ProcessorSharing{lo}) <= mean_time(ProcessorSharing{hi}));
  RC_ASSERT(mean_number(ProcessorSharing{lo}) <= mean_number(ProcessorSharing{hi}));
  // Little: N = λ·T with λ = ρ/x (x = 1).
  RC_ASSERT(std::abs(mean_number(ProcessorSharing{hi}) - hi * mean_time(ProcessorSharing{hi})) <=
            4 * eps * mean_number(ProcessorSharing{hi}));
}

Backoff random_backoff(Strategy s) {
  const double base = *in_range(0.01, 10.0);
  const bool uncapped = *rc::gen::arbitrary<bool>();
  const double cap = uncapped ? unbounded_cap : base * *in_range(1.0, 1e4);
  return Backoff{s, base, cap, *in_range(0.01, 100.0)};
}

RC_GTEST_PROP(SleepProperty, ExactQuantilesMonotoneInQAndK, ()) {
  const Backoff b = random_backoff(*exact_strategy());
  const int k1 = *rc::gen::inRange(1, 60), k2 = *rc::gen::inRange(1, 60);
  const double q1 = *in_range(0.0, 1.0), q2 = *in_range(0.0, 1.0);
  const SleepDistribution lo(b, std::min(k1, k2)), hi(b, std::max(k1, k2));
  RC_ASSERT(lo.quantile(std::min(q1, q2)) <= lo.quantile(std::max(q1, q2)));
  RC_ASSERT(lo.quantile(q1) <= hi.quantile(q1));
  // quantile and cdf are inverse: F(Q(q)) >= q, up to rounding: F subtracts the support's lower end
  // (at most half the upper end for these strategies), so the absolute error is a few ε.
  RC_ASSERT(lo.cdf(lo.quantile(q1)) >= q1 - 4 * eps);
}

// s_k is stochastically increasing in k (the kernel is monotone and s_1 >= s_0 = b); numerically
// up to the stated CDF accuracy (decorrelated.hpp: < 3e-7 per CDF, so 6e-7 for a difference).
RC_GTEST_PROP(SleepProperty, DecorrelatedQuantilesMonotoneInQAndK, ()) {
  const Backoff b = random_backoff(Strategy::decorrelated);
  const int k = *rc::gen::inRange(1, 25);
  const SleepDistribution now(b, k), next(b, k + 1);
  const double q1 = *in_range(0.0, 1.0), q2 = *in_range(0.0, 1.0);
  RC_ASSERT(now.quantile(std::min(q1, q2)) <= now.quantile(std::max(q1, q2)));
  for (int i = 0; i <= 50; ++i) {
    const double t = now.lower() * std::pow(next.upper() / now.lower(), i / 50.0);
    RC_ASSERT(next.cdf(t) <= now.cdf(t) + 6e-7);
  }
}

// equal_full_mean: equal jitter with (b, C) has the mean of full jitter with (1.5b, 1.5C) for every k,
// and of full jitter with (b, 1.5C) once both windows sit at their caps.
RC_GTEST_PROP(SleepProperty, EqualJitterMeanIsFullJitterMeanWithCapOneAndAHalfTimes, ()) {
  Backoff eq = random_backoff(Strategy::equal);
  if (std::isinf(eq.cap)) eq.cap = eq.base * 100;
  const int k = *rc::gen::inRange(1, 60);
  const double equal_mean = SleepDistribution(eq, k).mean();
  const Backoff scaled{Strategy::full, 1.5 * eq.base, 1.5 * eq.cap, 0.0};
  RC_ASSERT(std::abs(equal_mean - SleepDistribution(scaled, k).mean()) <= 4 * eps * equal_mean);
  if (std::ldexp(eq.base, k - 1) >= 1.5 * eq.cap) {
    const Backoff full{Strategy::full, eq.base, 1.5 * eq.cap, 0.0};
    RC_ASSERT(std::abs(equal_mean - SleepDistribution(full, k).mean()) <= 4 * eps * equal_mean);
  }
}

// The decorrelated grid's accuracy, checked against a grid 4 times finer over the range the header
// states (k <= 40, c/b <= 1e4 or none): the a-posteriori CDF error estimate stays below 3e-7.
RC_GTEST_PROP(DecorrelatedProperty, DefaultGridAccurateAgainstFinerGrid, ()) {
  const double base = *in_range(0.01, 10.0);
  const bool uncapped = *rc::gen::arbitrary<bool>();
  const double cap = uncapped ? unbounded_cap : base * *in_range(1.0, 1e4);
  const int k = *rc::gen::inRange(1, 41);
  const double accuracy = decorrelated_accuracy(Backoff{Strategy::decorrelated, base, cap, 0.0}, k);
  RC_TAG(k > 20 ? "k > 20" : "k <= 20");
  RC_ASSERT(accuracy < 3e-7);
}

}  // namespace
}  // namespace retrylab::properties_test
